import Basics
import Foundation

/// Writes photos as Unsplash's `GET /photos` does: the same fields, in the same order, with
/// the same nulls; image and tracking URLs point at the stub itself.
struct PhotoRenderer: Sendable {
    let seed: UInt64
    let baseURL: URL
    let photographers: [Photographer]
    let sponsors: [Photographer]

    /// The summary object of a list.
    func summary(_ photo: StubPhoto) -> JSONValue {
        .object(summaryMembers(photo))
    }

    /// The object of `GET /photos/:id`, in Unsplash's shape (the recording `photo.json`): the
    /// summary, then `exif`, `location`, `meta`, `public_domain`, `tags`, `views`, `downloads`,
    /// `topics` and `related_collections`. Some photos have a place (name, city, country and
    /// position), the others a location of nulls, as Unsplash sends for most photos.
    func full(_ photo: StubPhoto) -> JSONValue {
        var generator = Determinism.generator("full:\(seed):\(photo.id)")
        var members = summaryMembers(photo)
        let place = generator.next() % 2 == 0 ? generator.pick(Self.locations) : nil
        let tags = (0..<generator.int(in: 2...5)).map { _ in generator.pick(Self.tagWords) }
        let extra: [(String, JSONValue)] = [
            (
                "exif",
                [
                    "make": "FUJIFILM", "model": "X-T4", "name": "FUJIFILM, X-T4",
                    "exposure_time": "1/250", "aperture": "5.6", "focal_length": "23.0",
                    "iso": .int(generator.pick([160, 200, 400, 800])),
                ]
            ),
            (
                "location",
                [
                    "name": place.map { .string($0.city + ", " + $0.country) } ?? .null,
                    "city": place.map { .string($0.city) } ?? .null,
                    "country": place.map { .string($0.country) } ?? .null,
                    "position": [
                        "latitude": place.map { .double($0.latitude) } ?? .null,
                        "longitude": place.map { .double($0.longitude) } ?? .null,
                    ],
                ]
            ),
            ("meta", ["index": true]),
            ("public_domain", false),
            ("tags", .array(Self.distinct(tags).map { ["type": "search", "title": .string($0)] })),
            ("views", .int(generator.int(in: 1_000...5_000_000))),
            ("downloads", .int(generator.int(in: 10...80_000))),
            ("topics", []),
            ("related_collections", ["total": 0, "type": "related", "results": []]),
        ]
        members.append(contentsOf: extra)
        return .object(members)
    }

    /// Where the stub's photos with a place were taken.
    static let locations: [(city: String, country: String, latitude: Double, longitude: Double)] = [
        ("Göreme", "Türkiye", 38.6431, 34.8289), ("Reykjavík", "Iceland", 64.1466, -21.9426),
        ("Kyoto", "Japan", 35.0116, 135.7681), ("Lisboa", "Portugal", 38.7223, -9.1393),
        ("Cusco", "Peru", -13.5320, -71.9675),
    ]

    static let tagWords = [
        "mountain", "sunset", "city", "portrait", "forest", "ocean", "architecture", "street", "snow", "film camera",
    ]

    private static func distinct(_ words: [String]) -> [String] {
        var seen: [String] = []
        for word in words where !seen.contains(word) { seen.append(word) }
        return seen
    }

    /// The original image: `urls.raw`, and the answer of download tracking.
    func rawImageURL(_ photo: StubPhoto) -> String {
        imageBase(photo) + "?ixid=" + photo.ixid + "&ixlib=rb-4.0.3"
    }

    /// Unsplash+ images live on `plus.unsplash.com/premium_photo-...`; the stub keeps the path's shape.
    private func imageBase(_ photo: StubPhoto) -> String {
        photo.kind == .premium
            ? baseURL.absoluteString + "/premium_photo-" + photo.id
            : baseURL.absoluteString + "/images/" + photo.id
    }

    private func summaryMembers(_ photo: StubPhoto) -> [(String, JSONValue)] {
        var generator = Determinism.generator("photo:\(seed):\(photo.id)")
        let altDescription = Self.altDescription(using: &generator)
        let slug = Self.slug(altDescription) + "-" + photo.id
        let user: Photographer
        let sponsorship: JSONValue
        switch photo.kind {
        case .feed, .premium:
            user = generator.pick(photographers)
            sponsorship = .null
        case .sponsored:
            user = generator.pick(sponsors)
            sponsorship = self.sponsorship(by: user)
        }
        let isPortrait = generator.next() % 3 != 0
        let (long, short) = (generator.int(in: 4_000...9_000), generator.int(in: 2_600...5_900))
        let updatedAt = photo.createdAt + generator.int(in: 3_600...2_000_000)
        let isPromoted = generator.next() % 5 == 0
        let hasDescription = generator.next() % 3 != 0
        let ixid = photo.ixid
        let download = baseURL.absoluteString + "/photos/" + photo.id + "/download?ixid=" + ixid

        return [
            ("id", .string(photo.id)),
            ("slug", .string(slug)),
            (
                "alternative_slugs",
                [
                    "en": .string(slug),
                    "ja": .string("写真-" + photo.id),
                    "ko": .string("사진-" + photo.id),
                    "de": .string("foto-" + slug),
                ]
            ),
            ("created_at", .string(Timestamps.iso8601(photo.createdAt))),
            ("updated_at", .string(Timestamps.iso8601(updatedAt))),
            ("promoted_at", isPromoted ? .string(Timestamps.iso8601(photo.createdAt + 86_400)) : .null),
            ("width", .int(isPortrait ? short : long)),
            ("height", .int(isPortrait ? long : short)),
            ("color", .string(Self.color(using: &generator))),
            ("blur_hash", .string(Self.blurHash(using: &generator))),
            ("description", hasDescription ? .string(Self.description(using: &generator)) : .null),
            ("alt_description", .string(altDescription)),
            ("breadcrumbs", []),
            ("urls", urls(photo)),
            (
                "links",
                [
                    "self": .string(baseURL.absoluteString + "/photos/" + slug),
                    "html": .string("https://unsplash.com/photos/" + slug),
                    // A browser link on Unsplash's site; clients must track through download_location.
                    "download": .string("https://unsplash.com/photos/\(photo.id)/download?ixid=\(ixid)"),
                    "download_location": .string(download),
                ]
            ),
            ("likes", .int(generator.int(in: 0...2_500))),
            ("liked_by_user", false),
            ("current_user_collections", []),
            ("sponsorship", sponsorship),
            (
                "topic_submissions",
                generator.next() % 4 == 0
                    ? ["nature": ["status": "approved", "approved_on": .string(Timestamps.iso8601(updatedAt))]]
                    : [:]
            ),
            ("asset_type", "photo"),
            ("user", userObject(user)),
        ]
    }

    /// The photo's `urls`: imgix's sizes of one image, as Unsplash lists them.
    private func urls(_ photo: StubPhoto) -> JSONValue {
        let (image, ixid) = (imageBase(photo), photo.ixid)
        return [
            "raw": .string(rawImageURL(photo)),
            "full": .string("\(image)?crop=entropy&cs=srgb&fm=jpg&ixid=\(ixid)&ixlib=rb-4.0.3&q=85"),
            "regular": .string(
                "\(image)?crop=entropy&cs=tinysrgb&fit=max&fm=jpg&ixid=\(ixid)&ixlib=rb-4.0.3&q=80&w=1080"),
            "small": .string(
                "\(image)?crop=entropy&cs=tinysrgb&fit=max&fm=jpg&ixid=\(ixid)&ixlib=rb-4.0.3&q=80&w=400"),
            "thumb": .string(
                "\(image)?crop=entropy&cs=tinysrgb&fit=max&fm=jpg&ixid=\(ixid)&ixlib=rb-4.0.3&q=80&w=200"),
            "small_s3": .string("\(image)?w=400"),
        ]
    }

    func userObject(_ user: Photographer) -> JSONValue {
        let api = baseURL.absoluteString + "/users/" + user.username
        let profileImage =
            baseURL.absoluteString + "/images/profile-" + user.id
            + "?ixlib=rb-4.0.3&crop=faces&fit=crop"
        return [
            "id": .string(user.id),
            "updated_at": .string(Timestamps.iso8601(user.updatedAt)),
            "username": .string(user.username),
            "name": .string(user.name),
            "first_name": .string(user.firstName),
            "last_name": .string(user.lastName),
            "twitter_username": nil,
            "portfolio_url": nil,
            "bio": .string(user.bio),
            "location": .string(user.location),
            "links": [
                "self": .string(api),
                "html": .string("https://unsplash.com/@" + user.username),
                "photos": .string(api + "/photos"),
                "likes": .string(api + "/likes"),
                "portfolio": .string(api + "/portfolio"),
                "following": .string(api + "/following"),
                "followers": .string(api + "/followers"),
            ],
            "profile_image": [
                "small": .string(profileImage + "&w=32&h=32"),
                "medium": .string(profileImage + "&w=64&h=64"),
                "large": .string(profileImage + "&w=128&h=128"),
            ],
            "instagram_username": .string(user.instagramUsername),
            "total_collections": .int(user.totalCollections),
            "total_likes": .int(user.totalLikes),
            "total_photos": .int(user.totalPhotos),
            "total_promoted_photos": .int(user.totalPromotedPhotos),
            "total_illustrations": 0,
            "total_promoted_illustrations": 0,
            "accepted_tos": true,
            "for_hire": .bool(user.forHire),
            "social": [
                "instagram_username": .string(user.instagramUsername),
                "portfolio_url": nil,
                "twitter_username": nil,
                "paypal_email": nil,
            ],
        ]
    }

    private func sponsorship(by sponsor: Photographer) -> JSONValue {
        [
            "impression_urls": [
                .string("https://ads.example.invalid/pixel.gif?sponsor=\(sponsor.username)&rnd=[timestamp]")
            ],
            "tagline": .string(sponsor.bio),
            "tagline_url": .string(
                "https://example.invalid/\(sponsor.username)?utm_source=unsplash&utm_medium=referral"),
            "sponsor": userObject(sponsor),
        ]
    }

    // MARK: - Invented content

    private static let subjects = [
        "a red car", "a woman in a yellow coat", "a man", "a black dog", "a sleeping cat", "a mountain range",
        "a city skyline", "a bowl of ramen", "a wooden cabin", "a small sailboat", "a field of sunflowers",
        "a lighthouse", "an old bicycle", "a cup of coffee", "a snowy forest", "a desert road",
    ]
    private static let relations = [
        "parked next to", "standing in front of", "sitting on", "seen from", "reflected in", "under",
    ]
    private static let places = [
        "a lake", "a brick wall", "the ocean", "a busy street", "a mountain", "the night sky",
        "a wooden table", "a window", "a bridge", "the rain",
    ]

    private static func altDescription(using generator: inout SplitMix64) -> String {
        "\(generator.pick(subjects)) \(generator.pick(relations)) \(generator.pick(places))"
    }

    private static func description(using generator: inout SplitMix64) -> String {
        generator.pick([
            "Morning light over \(generator.pick(places)) — shot on film.",
            "“\(generator.pick(subjects).capitalized)”, somewhere between here and there.",
            "Taken on a long walk home. No edits.",
            "Quiet moments in \(generator.pick(["Kyōto", "Reykjavík", "São Paulo", "Zürich", "İstanbul"])).",
        ])
    }

    private static func slug(_ text: String) -> String {
        text.lowercased()
            .split { !($0.isLetter || $0.isNumber) }
            .joined(separator: "-")
    }

    private static func color(using generator: inout SplitMix64) -> String {
        "#" + Hex.string((0..<3).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
    }

    private static let base83 = Array(
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~")

    /// 28 characters beginning with `L`: the length and size flag of a 4x3-component BlurHash.
    private static func blurHash(using generator: inout SplitMix64) -> String {
        "L" + String((0..<27).map { _ in generator.pick(base83) })
    }
}

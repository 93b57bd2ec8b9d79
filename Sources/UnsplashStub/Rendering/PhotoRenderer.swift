import Basics
import Foundation

/// Writes photos as Unsplash's `GET /photos` does: the same fields, in the same order, with
/// the same nulls; image and tracking URLs point at the stub itself.
struct PhotoRenderer: Sendable {
    let seed: UInt64
    let baseURL: URL
    let photographers: [Photographer]
    let sponsors: [Photographer]
    /// Where each photo's `color` and `blur_hash` come from: its picture.
    let pictures: Pictures

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

    /// What a photo's JSON says of it but its picture's colour and blur hash: drawn from its
    /// seed alone, without painting anything, so that a list can be filtered by them.
    struct Facts {
        let look: PhotoLook
        /// The photographer, or for an advertisement the sponsor.
        let user: Photographer
        let updatedAt: Int
        let isPromoted: Bool
        let description: String?
        let likes: Int
        let isSubmittedToNature: Bool

        /// What search looks in: the description and the alt description.
        var searchableText: String {
            [description, look.altDescription].compactMap { $0 }.joined(separator: " ")
        }
    }

    func facts(_ photo: StubPhoto) -> Facts {
        let (look, photographerDraw, rest) = PhotoLook.drawn(seed: seed, id: photo.id)
        var generator = rest
        let people = photo.kind == .sponsored ? sponsors : photographers
        let updatedAt = photo.createdAt + generator.int(in: 3_600...2_000_000)
        let isPromoted = generator.next() % 5 == 0
        let hasDescription = generator.next() % 3 != 0
        let description = hasDescription ? Self.description(of: look, using: &generator) : nil
        return Facts(
            look: look, user: people[Int(photographerDraw % UInt64(people.count))], updatedAt: updatedAt,
            isPromoted: isPromoted, description: description, likes: generator.int(in: 0...2_500),
            isSubmittedToNature: generator.next() % 4 == 0)
    }

    private func summaryMembers(_ photo: StubPhoto) -> [(String, JSONValue)] {
        let facts = facts(photo)
        let slug = Self.slug(facts.look.altDescription) + "-" + photo.id
        let swatch = pictures.swatch(of: photo.id)
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
            ("updated_at", .string(Timestamps.iso8601(facts.updatedAt))),
            ("promoted_at", facts.isPromoted ? .string(Timestamps.iso8601(photo.createdAt + 86_400)) : .null),
            ("width", .int(facts.look.width)),
            ("height", .int(facts.look.height)),
            ("color", .string(swatch.color)),
            ("blur_hash", .string(swatch.blurHash)),
            ("description", .string(facts.description)),
            ("alt_description", .string(facts.look.altDescription)),
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
            ("likes", .int(facts.likes)),
            ("liked_by_user", false),
            ("current_user_collections", []),
            ("sponsorship", photo.kind == .sponsored ? sponsorship(by: facts.user) : .null),
            (
                "topic_submissions",
                facts.isSubmittedToNature
                    ? ["nature": ["status": "approved", "approved_on": .string(Timestamps.iso8601(facts.updatedAt))]]
                    : [:]
            ),
            ("asset_type", "photo"),
            ("user", userObject(facts.user)),
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

    /// A photographer's words for it: of what it shows, or of where, or of nothing much.
    private static func description(of look: PhotoLook, using generator: inout SplitMix64) -> String {
        generator.pick([
            "Light over \(look.place.rawValue) — shot on film.",
            "“\(look.subject.rawValue.capitalized)”, somewhere between here and there.",
            "Taken on a long walk home. No edits.",
            "Quiet moments in \(generator.pick(["Kyōto", "Reykjavík", "São Paulo", "Zürich", "İstanbul"])).",
        ])
    }

    private static func slug(_ text: String) -> String {
        text.lowercased()
            .split { !($0.isLetter || $0.isNumber) }
            .joined(separator: "-")
    }
}

import Foundation

/// One photo of the `GET /photos` list, as far as photosync reads it.
///
/// Every field but `id` is optional, because the real API sends `null` for many of them, and
/// unknown fields are ignored. ``json`` keeps the whole object, so nothing is lost.
public struct Photo: Decodable, Sendable, Identifiable, Equatable {
    public var id: String
    public var slug: String?
    public var createdAt: Date?
    public var updatedAt: Date?
    public var width: Int?
    public var height: Int?
    public var color: String?
    public var blurHash: String?
    public var description: String?
    public var altDescription: String?
    public var likes: Int?
    public var urls: ImageURLs?
    public var links: Links?
    public var user: User?
    /// Sponsored photos are injected at fixed positions of every page of the feed.
    public var isSponsored: Bool
    /// The object's JSON text: exactly as the API sent it when decoded by ``init(json:decoder:)``
    /// (as ``PhotoList`` does), or re-encoded with sorted keys when decoded through a `Decoder`.
    public var json: Data

    public struct ImageURLs: Decodable, Sendable, Equatable {
        public var raw: String?
        public var full: String?
        public var regular: String?
        public var small: String?
        public var thumb: String?

        public subscript(variant: ImageVariant) -> String? {
            switch variant {
            case .raw: raw
            case .full: full
            case .regular: regular
            case .small: small
            case .thumb: thumb
            }
        }
    }

    public struct Links: Decodable, Sendable, Equatable {
        public var html: String?
        /// Where to send the download-tracking request Unsplash's guidelines require.
        public var downloadLocation: String?

        enum CodingKeys: String, CodingKey {
            case html
            case downloadLocation = "download_location"
        }
    }

    public struct User: Decodable, Sendable, Equatable {
        public var id: String?
        public var username: String?
        public var name: String?
    }

    enum CodingKeys: String, CodingKey {
        case id, slug, width, height, color, description, likes, urls, links, user, sponsorship
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case blurHash = "blur_hash"
        case altDescription = "alt_description"
    }

    /// Decodes the photo from `json`, the text of one JSON object, and keeps that text as it is.
    /// - Throws: `DecodingError`.
    public init(json: Data, decoder: JSONDecoder = JSONDecoder()) throws {
        self = try decoder.decode(Fields.self, from: json).photo
        self.json = json
    }

    /// Decodes the photo, and its ``json`` as the object re-encoded with sorted keys: the same
    /// photo always gives the same text. Slower than ``init(json:decoder:)``, which keeps the text.
    public init(from decoder: any Decoder) throws {
        let object = try JSONValue(from: decoder)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        try self.init(fields: decoder.container(keyedBy: CodingKeys.self), json: encoder.encode(object))
    }

    private init(fields container: KeyedDecodingContainer<CodingKeys>, json: Data) throws {
        self.json = json
        id = try container.decode(String.self, forKey: .id)
        slug = try container.decodeIfPresent(String.self, forKey: .slug)
        createdAt = try container.decodeIfPresent(String.self, forKey: .createdAt).flatMap(Timestamp.parse)
        updatedAt = try container.decodeIfPresent(String.self, forKey: .updatedAt).flatMap(Timestamp.parse)
        width = try container.decodeIfPresent(Int.self, forKey: .width)
        height = try container.decodeIfPresent(Int.self, forKey: .height)
        color = try container.decodeIfPresent(String.self, forKey: .color)
        blurHash = try container.decodeIfPresent(String.self, forKey: .blurHash)
        description = try container.decodeIfPresent(String.self, forKey: .description)
        altDescription = try container.decodeIfPresent(String.self, forKey: .altDescription)
        likes = try container.decodeIfPresent(Int.self, forKey: .likes)
        urls = try container.decodeIfPresent(ImageURLs.self, forKey: .urls)
        links = try container.decodeIfPresent(Links.self, forKey: .links)
        user = try container.decodeIfPresent(User.self, forKey: .user)
        isSponsored = try container.contains(.sponsorship) && !container.decodeNil(forKey: .sponsorship)
    }

    /// Whether this is an Unsplash+ photo, whose images need a paid licence. 2025 objects carry
    /// no flag for it: only their image URLs tell (`plus.unsplash.com/premium_photo-...`).
    public var isPlus: Bool {
        guard let urls else { return false }
        return [urls.raw, urls.full, urls.regular, urls.small, urls.thumb].contains { url in
            guard let url, let components = URLComponents(string: url) else { return false }
            return components.host?.lowercased() == UnsplashAPI.plusImageHost
                || components.path.hasPrefix("/premium_photo-")
        }
    }

    /// The fields alone, for ``init(json:decoder:)``, which adds the text.
    private struct Fields: Decodable {
        var photo: Photo

        init(from decoder: any Decoder) throws {
            photo = try Photo(fields: decoder.container(keyedBy: CodingKeys.self), json: Data())
        }
    }
}

/// Unsplash's timestamps: ISO 8601, with or without fractional seconds.
enum Timestamp {
    static func parse(_ text: String) -> Date? {
        (try? Date.ISO8601FormatStyle().parse(text))
            ?? (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle(timeZoneSeparator: .omitted).parse(text))
    }
}

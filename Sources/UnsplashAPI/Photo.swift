import Foundation

/// One photo of the `GET /photos` list, as far as photosync reads it.
///
/// Every field but `id` is optional, because the real API sends `null` for many of them, and
/// unknown fields are ignored. ``json`` keeps the whole object as sent, so nothing is lost.
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
    /// The object exactly as the API sent it.
    public var json: JSONValue

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

    public init(from decoder: any Decoder) throws {
        json = try JSONValue(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
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
        isSponsored = json["sponsorship"].map { $0 != .null } ?? false
    }

    /// ``json`` encoded with sorted keys: the same photo always gives the same bytes.
    public func encodedJSON() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(json)
    }
}

/// The image sizes Unsplash serves for every photo (`urls.<variant>`).
public enum ImageVariant: String, Sendable, CaseIterable, Codable {
    /// The original file: several MB to tens of MB.
    case raw
    /// Full-size JPEG: several MB.
    case full
    /// 1080 px wide, typically 100-400 KB.
    case regular
    /// 400 px wide.
    case small
    /// 200 px wide.
    case thumb
}

/// Unsplash's timestamps: ISO 8601, with or without fractional seconds.
enum Timestamp {
    static func parse(_ text: String) -> Date? {
        (try? Date.ISO8601FormatStyle().parse(text))
            ?? (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle(timeZoneSeparator: .omitted).parse(text))
    }
}

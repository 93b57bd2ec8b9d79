import Foundation
import PhotoStore

/// The JSON object of a listed photo: one line of `photosync list --json`, one element of the
/// gallery's `/api/photos`, and of `export`'s manifest. One writer for all three, so they can
/// never drift apart (``encode(_:)-([Object])`` and ``line(_:)``).
public enum PhotoListingJSON {
    /// `id`, `created_at`, `width`, `height`, `color`, `likes`, `description`,
    /// `alt_description`, `user {username, name}`, `sources` and
    /// `image {variant, content_type, bytes, sha256}` or null; absent values are null.
    public struct Object: Codable, Sendable, Equatable {
        public var id: String
        public var createdAt: String?
        public var width: Int?
        public var height: Int?
        public var color: String?
        public var likes: Int?
        public var description: String?
        public var altDescription: String?
        public var user: User
        public var sources: [String]
        public var image: Image?

        public struct User: Codable, Sendable, Equatable {
            public var username: String?
            public var name: String?

            public func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(username, forKey: .username)
                try container.encode(name, forKey: .name)
            }
        }

        public struct Image: Codable, Sendable, Equatable {
            public var variant: String
            public var contentType: String
            public var bytes: Int64
            public var sha256: String

            enum CodingKeys: String, CodingKey {
                case variant, bytes, sha256
                case contentType = "content_type"
            }
        }

        enum CodingKeys: String, CodingKey {
            case id, width, height, color, likes, description, user, sources, image
            case createdAt = "created_at"
            case altDescription = "alt_description"
        }

        /// Every key, absent values as null: the object's shape does not depend on the photo.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(createdAt, forKey: .createdAt)
            try container.encode(width, forKey: .width)
            try container.encode(height, forKey: .height)
            try container.encode(color, forKey: .color)
            try container.encode(likes, forKey: .likes)
            try container.encode(description, forKey: .description)
            try container.encode(altDescription, forKey: .altDescription)
            try container.encode(user, forKey: .user)
            try container.encode(sources, forKey: .sources)
            try container.encode(image, forKey: .image)
        }
    }

    public static func object(_ photo: PhotoSummary) -> Object {
        Object(
            id: photo.id, createdAt: photo.createdAt.map { $0.formatted(.iso8601) }, width: photo.width,
            height: photo.height, color: photo.color, likes: photo.likes, description: photo.description,
            altDescription: photo.altDescription, user: Object.User(username: photo.userUsername, name: photo.userName),
            sources: photo.sources,
            image: photo.image.map { image in
                Object.Image(
                    variant: image.variant.rawValue, contentType: image.contentType, bytes: image.byteCount,
                    sha256: image.sha256
                )
            })
    }

    /// `value` as compact JSON with sorted keys and unescaped slashes.
    public static func encode(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // The gallery's objects (strings, numbers, arrays of them) always encode.
        return (try? encoder.encode(value)) ?? Data("null".utf8)
    }

    /// `objects` as a JSON array, byte for byte what ``encode(_:)`` makes of them (compact,
    /// sorted keys, slashes unescaped), written without `JSONEncoder`: its generic containers
    /// took 40 % of the CPU of an `/api/photos` page of 30 photos, for a shape that never changes.
    public static func encode(_ objects: [Object]) -> Data {
        var json = JSONText()
        json.bytes.reserveCapacity(objects.count * 512 + 2)
        json.raw("[")
        for (index, object) in objects.enumerated() {
            if index > 0 { json.raw(",") }
            object.write(to: &json)
        }
        json.raw("]")
        return Data(json.bytes)
    }

    /// One photo as one line of JSON, without the newline.
    public static func line(_ photo: PhotoSummary) -> String {
        var json = JSONText()
        object(photo).write(to: &json)
        return String(decoding: json.bytes, as: UTF8.self)
    }
}

extension PhotoListingJSON.Object {
    /// The object as ``encode(to:)`` writes it through a `JSONEncoder` with sorted keys.
    func write(to json: inout JSONText) {
        json.raw("{\"alt_description\":")
        json.string(altDescription)
        json.raw(",\"color\":")
        json.string(color)
        json.raw(",\"created_at\":")
        json.string(createdAt)
        json.raw(",\"description\":")
        json.string(description)
        json.raw(",\"height\":")
        json.integer(height)
        json.raw(",\"id\":")
        json.string(id)
        json.raw(",\"image\":")
        if let image {
            json.raw("{\"bytes\":")
            json.integer(image.bytes)
            json.raw(",\"content_type\":")
            json.string(image.contentType)
            json.raw(",\"sha256\":")
            json.string(image.sha256)
            json.raw(",\"variant\":")
            json.string(image.variant)
            json.raw("}")
        } else {
            json.raw("null")
        }
        json.raw(",\"likes\":")
        json.integer(likes)
        json.raw(",\"sources\":[")
        for (index, source) in sources.enumerated() {
            if index > 0 { json.raw(",") }
            json.string(source)
        }
        json.raw("],\"user\":{\"name\":")
        json.string(user.name)
        json.raw(",\"username\":")
        json.string(user.username)
        json.raw("},\"width\":")
        json.integer(width)
        json.raw("}")
    }
}

/// JSON text written piece by piece, its strings escaped as `JSONEncoder` escapes them: the
/// quotation mark, the backslash and the control characters (`\b`, `\t`, `\n`, `\f` and `\r`
/// by name, the others as `\u00xx`), and nothing else.
struct JSONText {
    var bytes: [UInt8] = []

    private static let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
    private static let hex = Array("0123456789abcdef".utf8)

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func integer(_ value: (some BinaryInteger)?) {
        guard let value else { return raw("null") }
        bytes.append(contentsOf: String(value).utf8)
    }

    mutating func string(_ value: String?) {
        guard var value else { return raw("null") }
        bytes.append(Self.quote)
        value.withUTF8 { utf8 in
            var start = 0
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == Self.quote || byte == Self.backslash {
                bytes.append(contentsOf: utf8[start..<index])
                start = index + 1
                escape(byte)
            }
            bytes.append(contentsOf: utf8[start...])
        }
        bytes.append(Self.quote)
    }

    private mutating func escape(_ byte: UInt8) {
        switch byte {
        case Self.quote: raw("\\\"")
        case Self.backslash: raw("\\\\")
        case 0x08: raw("\\b")
        case 0x09: raw("\\t")
        case 0x0A: raw("\\n")
        case 0x0C: raw("\\f")
        case 0x0D: raw("\\r")
        default:
            raw("\\u00")
            bytes.append(Self.hex[Int(byte >> 4)])
            bytes.append(Self.hex[Int(byte & 0x0F)])
        }
    }
}

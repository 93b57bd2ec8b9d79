import Foundation
import PhotoStore

/// The JSON object of a listed photo: one line of `photosync list --json`, one element of the
/// gallery's `/api/photos`. One encoder for both, so the two can never drift apart.
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

    /// One photo as one line of JSON, without the newline.
    public static func line(_ photo: PhotoSummary) -> String {
        String(decoding: encode(object(photo)), as: UTF8.self)
    }
}

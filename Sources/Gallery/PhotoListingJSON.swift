import Foundation
import PhotoStore
import UnsplashAPI

/// The JSON object of a listed photo: one line of `photosync list --json`, one element of the
/// gallery's `/api/photos`. One encoder for both, so the two can never drift apart.
public enum PhotoListingJSON {
    /// `id`, `created_at`, `width`, `height`, `color`, `likes`, `description`,
    /// `alt_description`, `user {username, name}`, `sources` and
    /// `image {variant, content_type, bytes, sha256}` or null; absent values are null.
    public static func object(_ photo: PhotoSummary) -> JSONValue {
        .object([
            "id": .string(photo.id),
            "created_at": photo.createdAt.map { .string($0.formatted(.iso8601)) } ?? .null,
            "width": photo.width.map { .int(Int64($0)) } ?? .null,
            "height": photo.height.map { .int(Int64($0)) } ?? .null,
            "color": photo.color.map(JSONValue.string) ?? .null,
            "likes": photo.likes.map { .int(Int64($0)) } ?? .null,
            "description": photo.description.map(JSONValue.string) ?? .null,
            "alt_description": photo.altDescription.map(JSONValue.string) ?? .null,
            "user": .object([
                "username": photo.userUsername.map(JSONValue.string) ?? .null,
                "name": photo.userName.map(JSONValue.string) ?? .null,
            ]),
            "sources": .array(photo.sources.map(JSONValue.string)),
            "image": photo.image.map { image in
                .object([
                    "variant": .string(image.variant), "content_type": .string(image.contentType),
                    "bytes": .int(image.byteCount), "sha256": .string(image.sha256),
                ])
            } ?? .null,
        ])
    }

    /// `value` as compact JSON with sorted keys and unescaped slashes.
    public static func encode(_ value: JSONValue) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // A JSONValue always encodes.
        return (try? encoder.encode(value)) ?? Data("null".utf8)
    }

    /// One photo as one line of JSON, without the newline.
    public static func line(_ photo: PhotoSummary) -> String {
        String(decoding: encode(object(photo)), as: UTF8.self)
    }
}

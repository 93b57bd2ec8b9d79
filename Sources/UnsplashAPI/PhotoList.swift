import Foundation

/// The body of a photo list (`GET /photos`), decoded one element at a time: a page with one
/// unusable element still yields its good photos, and the bad one is kept as a ``RejectedElement``.
///
/// Only a body that is not a JSON array at all fails to decode.
public struct PhotoList: Decodable, Sendable {
    public var photos: [Photo]
    public var rejected: [RejectedElement]

    public init(photos: [Photo], rejected: [RejectedElement] = []) {
        self.photos = photos
        self.rejected = rejected
    }

    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        photos = []
        rejected = []
        while !container.isAtEnd {
            let index = container.currentIndex
            switch try container.decode(Element.self) {
            case .photo(let photo): photos.append(photo)
            case .rejected(let json, let reason):
                rejected.append(RejectedElement(index: index, json: json, reason: reason))
            }
        }
    }

    /// Decodes as a photo, or keeps the element's JSON and why it is not one. Never throws for a
    /// well-formed JSON value, so the list goes on to the next element.
    private enum Element: Decodable {
        case photo(Photo)
        case rejected(JSONValue, reason: String)

        init(from decoder: any Decoder) throws {
            let json = try JSONValue(from: decoder)
            do {
                let photo = try Photo(from: decoder)
                if let problem = Self.problem(with: photo) {
                    self = .rejected(json, reason: problem)
                } else {
                    self = .photo(photo)
                }
            } catch let error as DecodingError {
                self = .rejected(json, reason: Self.describe(error, depth: decoder.codingPath.count))
            }
        }

        /// What the store could not keep although it decodes: it would break the page's commit.
        private static func problem(with photo: Photo) -> String? {
            if photo.id.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return "\"id\" is empty" }
            for (name, value) in [("width", photo.width), ("height", photo.height), ("likes", photo.likes)] {
                if let value, value < 0 { return "\"\(name)\" is negative (\(value))" }
            }
            return nil
        }

        /// The problem, with the path inside the element (`user.name`), not inside the page.
        private static func describe(_ error: DecodingError, depth: Int) -> String {
            func path(_ keys: [any CodingKey]) -> String {
                keys.dropFirst(depth).map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }
                    .joined().trimmingPrefix(".").description
            }
            switch error {
            case .keyNotFound(let key, let context):
                return "\"\(path(context.codingPath + [key]))\" is missing"
            case .valueNotFound(let type, let context):
                return "\"\(path(context.codingPath))\" is null, expected \(type)"
            case .typeMismatch(let type, let context):
                let at = path(context.codingPath)
                return at.isEmpty ? "not a JSON object" : "\"\(at)\" is not \(type)"
            case .dataCorrupted(let context):
                return "\"\(path(context.codingPath))\": \(context.debugDescription)"
            @unknown default:
                return "\(error)"
            }
        }
    }
}

/// An element of a photo list that is not a usable photo: its JSON as sent, and why.
public struct RejectedElement: Sendable, Equatable {
    /// Its position in the page's array.
    public var index: Int
    public var json: JSONValue
    /// E.g. `"id" is missing`, `"width" is not Int`.
    public var reason: String

    public init(index: Int, json: JSONValue, reason: String) {
        self.index = index
        self.json = json
        self.reason = reason
    }

    /// The element's `id` when it is a non-empty string, to tell which photo it was.
    public var photoID: String? {
        json["id"]?.string.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// ``json`` encoded with sorted keys: the same element always gives the same bytes.
    public func encodedJSON() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(json)
    }
}

import Foundation
import Networking

/// The body of a photo list (`GET /photos`), decoded one element at a time: a page with one
/// unusable element still yields its good photos, and the bad one is kept as a ``RejectedElement``.
///
/// Only a body that is not a JSON array at all fails to decode. From a response body
/// (``init(body:decoder:)``), each element's JSON is kept exactly as it was sent.
public struct PhotoList: BodyDecodable, Sendable {
    public var photos: [Photo]
    public var rejected: [RejectedElement]

    public init(photos: [Photo], rejected: [RejectedElement] = []) {
        self.photos = photos
        self.rejected = rejected
    }

    /// Decodes the array in `body`, each element from its own text, which it keeps: no element
    /// is built as a tree of JSON values, which cost more than the rest of a page's decoding.
    /// - Throws: `DecodingError` when `body` is not a JSON array.
    public init(body: Data, decoder: JSONDecoder) throws {
        // The whole body must parse as an array before its text is cut into elements.
        let count = try decoder.decode([Unread].self, from: body).count
        let elements = JSONSpans.arrayElements(of: body)
        guard elements.count == count else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: "the array's elements could not be told apart"))
        }
        photos = []
        rejected = []
        for (index, range) in elements.enumerated() {
            let text = body[range]
            guard String(validating: text, as: UTF8.self) != nil else {
                rejected.append(
                    RejectedElement(
                        index: index, json: Data(String(decoding: text, as: UTF8.self).utf8), reason: "not valid UTF-8")
                )
                continue
            }
            let json = Data(text)
            do {
                let photo = try Photo(json: json, decoder: decoder)
                if let problem = Element.problem(with: photo) {
                    rejected.append(RejectedElement(index: index, canonicalizing: json, reason: problem))
                } else {
                    photos.append(photo)
                }
            } catch let error as DecodingError {
                rejected.append(
                    RejectedElement(index: index, canonicalizing: json, reason: Element.describe(error, depth: 0)))
            }
        }
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

    /// An element that is parsed, as part of its array, and not read.
    private struct Unread: Decodable {
        init(from decoder: any Decoder) throws {}
    }

    /// Decodes as a photo, or keeps the element's JSON and why it is not one. Never throws for a
    /// well-formed JSON value, so the list goes on to the next element.
    private enum Element: Decodable {
        case photo(Photo)
        case rejected(Data, reason: String)

        init(from decoder: any Decoder) throws {
            let json = try RejectedElement.sortedText(JSONValue(from: decoder))
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
        static func problem(with photo: Photo) -> String? {
            if photo.id.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { return "\"id\" is empty" }
            for (name, value) in [("width", photo.width), ("height", photo.height), ("likes", photo.likes)] {
                if let value, value < 0 { return "\"\(name)\" is negative (\(value))" }
            }
            return nil
        }

        /// The problem, with the path inside the element (`user.name`), not inside the page.
        static func describe(_ error: DecodingError, depth: Int) -> String {
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

/// An element of a photo list that is not a usable photo: its JSON, and why.
public struct RejectedElement: Sendable, Equatable {
    /// Its position in the page's array.
    public var index: Int
    /// Its JSON text, re-encoded with sorted keys.
    public var json: Data
    /// E.g. `"id" is missing`, `"width" is not Int`.
    public var reason: String

    public init(index: Int, json: Data, reason: String) {
        self.index = index
        self.json = json
        self.reason = reason
    }

    /// A rejected element with its text re-encoded with sorted keys, as the `Decoder` path keeps
    /// it: the same element always gives the same text, however the server ordered its members,
    /// so that it is recorded once.
    init(index: Int, canonicalizing json: Data, reason: String) {
        let value = try? JSONDecoder().decode(JSONValue.self, from: json)
        self.init(index: index, json: value.flatMap { try? Self.sortedText($0) } ?? json, reason: reason)
    }

    /// The element's `id` when it is a non-empty string, to tell which photo it was.
    public var photoID: String? {
        guard let id = (try? JSONDecoder().decode(Identified.self, from: json))?.id, !id.isEmpty else { return nil }
        return id
    }

    /// `value` encoded with sorted keys: the same value always gives the same text.
    static func sortedText(_ value: JSONValue) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    /// An object's `id`, when it is a string; anything else decodes to nil.
    private struct Identified: Decodable {
        var id: String?

        init(from decoder: any Decoder) throws {
            id = try? decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(String.self, forKey: .id)
        }

        enum CodingKeys: String, CodingKey { case id }
    }
}

import Foundation
import Networking

/// The object a source lists the photos of, as Unsplash describes it: a collection
/// (`GET /collections/:id`), a topic (`GET /topics/:id_or_slug`) or a user's public profile
/// (`GET /users/:username`). Kept as the exact JSON text the API sent, for the mirror to serve
/// back; only its `id` is read, a string or, as the API sent it for collections until about
/// 2019 (`"id": 201`), a whole number.
public struct SourceObject: BodyDecodable, Sendable, Equatable {
    /// The largest object accepted. A collection with its cover and preview photos is some
    /// 11 KB, a topic some 21 KB; the API's text is untrusted and is stored as it is.
    public static let maxBytes = 1 << 20

    /// The object's `id`: a collection's id, a topic's id (not its slug), a user's id; a
    /// numeric id as its decimal text.
    public var id: String
    /// The body as the API sent it.
    public var json: Data

    /// Takes `body` as it is once it is a JSON object with an `id` (a string or a whole number).
    /// - Throws: `DecodingError` when `body` is larger than ``maxBytes``, not a JSON object, or
    ///   has no such `id`.
    public init(body: Data, decoder: JSONDecoder) throws {
        guard body.count <= Self.maxBytes else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: "the object is \(body.count) bytes, over \(Self.maxBytes)"))
        }
        id = try decoder.decode(Identified.self, from: body).id.text
        json = body
    }

    public init(from decoder: any Decoder) throws {
        let value = try JSONValue(from: decoder)
        guard case .object = value, let id = value["id"].flatMap(ObjectID.init(value:)) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "not an object with a string or numeric id"))
        }
        self.id = id.text
        json = try RejectedElement.sortedText(value)
    }

    /// What must be there: decoding it also checks that the body is a JSON object.
    private struct Identified: Decodable {
        var id: ObjectID
    }
}

/// An object's `id` as Unsplash has sent it: a string, or a whole number in older objects (a
/// 2019 collection's `"id": 201`), kept as its decimal text. Anything else (a fraction, a
/// boolean, null) is refused.
public struct ObjectID: Decodable, Sendable, Equatable {
    public var text: String

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            self.text = text
        } else if let number = try? container.decode(Int64.self) {
            text = String(number)
        } else {
            throw DecodingError.typeMismatch(
                String.self,
                .init(codingPath: decoder.codingPath, debugDescription: "expected a string or a whole number"))
        }
    }

    /// The id `value` holds; nil when it is neither a string nor a whole number.
    public init?(value: JSONValue) {
        switch value {
        case .string(let text): self.text = text
        case .int(let number): text = String(number)
        default: return nil
        }
    }
}

extension PhotoSource {
    /// The path segments of the object this source lists the photos of (`["collections", "42"]`),
    /// or nil for the feed and a search, which have none. A user's and a likes source of one
    /// username share theirs: the profile.
    public var objectSegments: [String]? {
        switch self {
        case .feed, .search: nil
        case .user(let name), .likes(let name): ["users", name]
        case .collection(let id): ["collections", id]
        case .topic(let slug): ["topics", slug]
        }
    }
}

extension UnsplashAPI {
    /// `GET` the object `source` lists the photos of (see ``PhotoSource/objectSegments``); nil
    /// for a source that has none.
    public func object(of source: PhotoSource) -> Endpoint<SourceObject>? {
        guard let segments = source.objectSegments else { return nil }
        var endpoint = Endpoint<SourceObject>(
            baseURL: baseURL, headers: headers, timeout: Self.requestTimeout, credential: credential)
        endpoint.segments = segments
        return endpoint
    }
}

extension PhotoRepository {
    /// The object `source` lists the photos of, as the API sent it, with what the answer said
    /// of the rate limit; nil for a source that has none (the feed, a search). Retries are
    /// admitted as a page's are (``admitting(_:)``).
    /// - Throws: ``UnsplashError``; a body that is not an object with an `id`, or larger than
    ///   ``SourceObject/maxBytes``, is ``UnsplashError/network(_:)`` with a decoding error.
    public func object(of source: PhotoSource) async throws(UnsplashError) -> (
        object: SourceObject, rateLimit: RateLimit?
    )? {
        guard let endpoint = api.object(of: source) else { return nil }
        let provider = apiProvider
        let response = try await mapped { () throws(NetworkError) in try await provider.response(endpoint) }
        return (response.value, RateLimit(headers: response.headers))
    }
}

import Foundation
import Networking

/// One photo as `GET /photos/:id` answers it: the list version's fields and more (`exif`,
/// `location`, `meta`, `tags`, `views`, `downloads`, `related_collections`, `topics`...).
///
/// ``json`` keeps the body exactly as the API sent it, as ``Photo`` keeps a list photo's; only
/// what photosync reads of it is decoded, every part optional and a part of an unexpected shape
/// left out, never failing the rest.
public struct FullPhoto: BodyDecodable, Sendable, Equatable {
    /// The largest body accepted. Unsplash's full object is some 15 KB (its related
    /// collections carry photos of their own); the API's text is untrusted.
    public static let maxBytes = 1 << 20

    public var id: String
    public var location: Location?
    public var exif: Exif?
    /// The titles of its `tags`, in order.
    public var tags: [String]
    /// The body as the API sent it.
    public var json: Data

    public struct Location: Decodable, Sendable, Equatable {
        public var name: String?
        public var city: String?
        public var country: String?
    }

    public struct Exif: Decodable, Sendable, Equatable {
        public var make: String?
        public var model: String?
        public var name: String?
        public var exposureTime: String?
        public var aperture: String?
        public var focalLength: String?
        public var iso: Int?

        enum CodingKeys: String, CodingKey {
            case make, model, name, aperture, iso
            case exposureTime = "exposure_time"
            case focalLength = "focal_length"
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            make = try? container.decodeIfPresent(String.self, forKey: .make)
            model = try? container.decodeIfPresent(String.self, forKey: .model)
            name = try? container.decodeIfPresent(String.self, forKey: .name)
            exposureTime = try? container.decodeIfPresent(String.self, forKey: .exposureTime)
            aperture = try? container.decodeIfPresent(String.self, forKey: .aperture)
            focalLength = try? container.decodeIfPresent(String.self, forKey: .focalLength)
            iso = try? container.decodeIfPresent(Int.self, forKey: .iso)
        }
    }

    /// Decodes `body`, the text of one JSON object with a string `id`, and keeps it as it is.
    /// - Throws: `DecodingError` when `body` is larger than ``maxBytes``, not a JSON object, or
    ///   has no string `id`.
    public init(body: Data, decoder: JSONDecoder = JSONDecoder()) throws {
        guard body.count <= Self.maxBytes else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [], debugDescription: "the photo is \(body.count) bytes, over \(Self.maxBytes)"))
        }
        self = try decoder.decode(Self.self, from: body)
        json = body
    }

    enum CodingKeys: String, CodingKey {
        case id, location, exif, tags
    }

    /// Decodes the fields, and ``json`` as the object re-encoded with sorted keys (use
    /// ``init(body:decoder:)`` to keep the text as it was sent).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        location = try? container.decodeIfPresent(Location.self, forKey: .location)
        exif = try? container.decodeIfPresent(Exif.self, forKey: .exif)
        let tags = (try? container.decodeIfPresent([Tag].self, forKey: .tags)) ?? []
        self.tags = tags.compactMap(\.title)
        json = try RejectedElement.sortedText(JSONValue(from: decoder))
    }

    private struct Tag: Decodable {
        var title: String?

        init(from decoder: any Decoder) throws {
            title = try? decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(String.self, forKey: .title)
        }

        enum CodingKeys: String, CodingKey { case title }
    }
}

extension UnsplashAPI {
    /// `GET /photos/:id`: the photo's full object, within ``requestTimeout`` as every API route.
    public func photo(id: String) -> Endpoint<FullPhoto> {
        var endpoint = Endpoint<FullPhoto>(
            baseURL: baseURL, headers: headers, timeout: Self.requestTimeout, credential: credential)
        endpoint.segments = ["photos", id]
        return endpoint
    }
}

extension PhotoRepository {
    /// The full object of photo `id`, as the API sent it, with what the answer said of the rate
    /// limit. Retries are admitted as a page's are (``admitting(_:)``).
    /// - Throws: ``UnsplashError``: an unknown photo is the API's 404; a body that is not an
    ///   object with a string `id`, or larger than ``FullPhoto/maxBytes``, is
    ///   ``UnsplashError/network(_:)`` with a decoding error.
    public func photo(id: String) async throws(UnsplashError) -> (photo: FullPhoto, rateLimit: RateLimit?) {
        let endpoint = api.photo(id: id)
        let provider = apiProvider
        let response = try await mapped { () throws(NetworkError) in try await provider.response(endpoint) }
        return (response.value, RateLimit(headers: response.headers))
    }
}

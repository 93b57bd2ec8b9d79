import Foundation
import Networking

/// The body of `GET /search/photos`: the photos are in `results`, not a bare array.
///
/// From a response body (``init(body:decoder:)``) the results are read as a ``PhotoList`` from
/// their own text, so each photo keeps the exact JSON the API sent, as the feed's do.
public struct SearchResults: BodyDecodable, Sendable {
    /// Photos matching the query; an estimate (Unsplash's header and body may disagree by one).
    public var total: Int?
    public var totalPages: Int?
    public var results: PhotoList

    enum CodingKeys: String, CodingKey {
        case total, results
        case totalPages = "total_pages"
    }

    /// - Throws: `DecodingError` when `body` is not an object with a `results` array.
    public init(body: Data, decoder: JSONDecoder) throws {
        let counts = try decoder.decode(Counts.self, from: body)
        guard let results = JSONSpans.member("results", of: body) else {
            throw DecodingError.keyNotFound(
                CodingKeys.results, .init(codingPath: [], debugDescription: "no results in a search answer"))
        }
        total = counts.total
        totalPages = counts.totalPages
        self.results = try PhotoList(body: Data(body[results]), decoder: decoder)
    }

    /// The counts alone; `results` is read from its text.
    private struct Counts: Decodable {
        var total: Int?
        var totalPages: Int?

        enum CodingKeys: String, CodingKey {
            case total
            case totalPages = "total_pages"
        }
    }
}

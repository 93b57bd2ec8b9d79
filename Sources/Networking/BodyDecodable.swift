import Foundation

/// A response that decodes itself from its body's bytes rather than through a `Decoder`: for one
/// that keeps part of the JSON exactly as it was sent, which no `Decoder` can hand out.
///
/// ``Provider/response(_:)`` calls ``init(body:decoder:)`` for such a type; a `DecodingError`
/// it throws is reported like any other, as ``NetworkError/decoding(type:codingPath:reason:url:)``.
/// The `Decodable` conformance still serves when the type is nested in another response.
public protocol BodyDecodable: Decodable {
    init(body: Data, decoder: JSONDecoder) throws
}

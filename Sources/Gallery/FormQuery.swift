import Foundation

/// A URL's query as an HTML form sends it: `name=value` pairs split on `&`, `+` for a space,
/// percent-escapes decoded. An empty value counts as absent, as an empty search box means no
/// search.
struct FormQuery: Sendable {
    private var values: [String: String] = [:]

    init(_ query: String?) {
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ text: Substring) -> String? {
                text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
            }
            guard let name = decode(parts[0]), values[name] == nil else { continue }
            let value = parts.count > 1 ? decode(parts[1]) : ""
            if let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty {
                values[name] = value
            }
        }
    }

    subscript(name: String) -> String? { values[name] }

    /// The whole number named `name`; nil when absent.
    /// - Throws: ``GalleryError/badParameter`` when it is not a number within `range`.
    func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = values[name] else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw GalleryError.badParameter("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound) (got '\(text)')")
        }
        return value
    }

    /// `pairs` encoded as a query, for links that keep the current filters; empty values are left out.
    static func encode(_ pairs: [(String, String?)]) -> String {
        let allowed = Attribution.unreserved
        return pairs.compactMap { name, value in
            guard let value, !value.isEmpty else { return nil }
            return name + "=" + (value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")
        }.joined(separator: "&")
    }
}

/// What a request to the gallery got wrong, as a person can read it.
enum GalleryError: Error, Equatable {
    /// A query parameter that is not what it must be; the text says which and why.
    case badParameter(String)
    /// A search FTS5 cannot parse.
    case badSearch(String)
    /// The image was stored again while its bytes were being sent: the answer is cut short.
    case imageChanged(photoID: String, variant: String)

    var message: String {
        switch self {
        case .badParameter(let text): text
        case .imageChanged(let photoID, let variant): "the \(variant) image of photo \(photoID) changed while it was sent"
        case .badSearch(let text): "the search '\(text)' cannot be understood: use words, \"quoted phrases\", prefix* and AND, OR, NOT"
        }
    }
}

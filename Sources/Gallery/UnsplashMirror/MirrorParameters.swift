import Foundation
import Hummingbird
import HummingbirdCore

/// A request's query parameters as Unsplash reads them: `+` is a space, percent-escapes are
/// decoded, and a parameter given twice keeps its last value.
struct MirrorParameters: Sendable {
    private(set) var values: [String: String] = [:]

    init(_ uri: URI) {
        for pair in (uri.query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decoded(_ text: Substring) -> String {
                let spaced = text.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            let name = decoded(parts[0])
            guard !name.isEmpty else { continue }
            values[name] = parts.count > 1 ? decoded(parts[1]) : ""
        }
    }

    /// The value of `name`, trimmed; nil when absent or blank.
    subscript(name: String) -> String? {
        let value = values[name]?.trimmingCharacters(in: .whitespaces)
        return value?.isEmpty == false ? value : nil
    }

    /// `name` as a whole number of at least `minimum`, at most `maximum` (a larger one is
    /// lowered to it, as Unsplash caps `per_page`); `fallback` when absent.
    /// - Throws: ``MirrorFailure/badRequest(_:)`` when it is not such a number.
    func integer(_ name: String, minimum: Int = 1, maximum: Int = Int(Int32.max), fallback: Int)
        throws(MirrorFailure) -> Int
    {
        guard let text = self[name] else { return fallback }
        guard let value = Int(text), value >= minimum else {
            throw .badRequest("\(name) must be a whole number of at least \(minimum)")
        }
        return min(value, maximum)
    }

    /// `name`, which must be one of `allowed`; nil when absent.
    func choice(_ name: String, in allowed: [String]) throws(MirrorFailure) -> String? {
        guard let value = self[name] else { return nil }
        guard allowed.contains(value) else {
            throw .badRequest("\(name) must be one of \(allowed.joined(separator: ", "))")
        }
        return value
    }
}

/// A page of a list, as Unsplash pages: `page` from 1, `per_page` 10 unless given, at most 30.
struct MirrorPage: Sendable, Equatable {
    var number: Int
    var size: Int

    /// Unsplash's largest page.
    static let largest = 30

    /// - Throws: ``MirrorFailure/badRequest(_:)`` for a page or per_page that is not a whole
    ///   number from 1.
    init(_ parameters: MirrorParameters) throws(MirrorFailure) {
        number = try parameters.integer("page", maximum: 1_000_000, fallback: 1)
        size = try parameters.integer("per_page", maximum: Self.largest, fallback: 10)
    }

    var offset: Int { (number - 1) * size }

    /// The `Link` header of this page of a list of `total`: `first` and `prev` after page 1,
    /// `last` and `next` before the last page, each the request's own URL (`base` and `path`)
    /// with its parameters but `client_id` in alphabetical order, and `page` set.
    func link(base: String, path: String, parameters: MirrorParameters, total: Int) -> String? {
        let last = max(1, (total + size - 1) / size)
        var kept = parameters.values.filter { $0.key != "client_id" && $0.key != "page" }
        // The size served, which a larger per_page was lowered to.
        if kept["per_page"] != nil { kept["per_page"] = String(size) }
        func url(_ page: Int) -> String {
            kept["page"] = String(page)
            let query = kept.sorted { $0.key < $1.key }.map { Self.escaped($0.key) + "=" + Self.escaped($0.value) }
            return "<" + base + path + "?" + query.joined(separator: "&") + ">"
        }
        var links: [String] = []
        if number > 1 {
            links.append(url(1) + "; rel=\"first\"")
            links.append(url(min(number - 1, last)) + "; rel=\"prev\"")
        }
        if number < last {
            links.append(url(last) + "; rel=\"last\"")
            links.append(url(number + 1) + "; rel=\"next\"")
        }
        return links.isEmpty ? nil : links.joined(separator: ", ")
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private static func escaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}

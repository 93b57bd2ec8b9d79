import Foundation

/// The targets of an HTTP `Link` header (RFC 8288) by relation: `<URL>; rel="next", ...`.
public struct LinkHeader: Sendable, Equatable {
    public var links: [String: URL]

    /// Parses `value`; relations may come in any order, and malformed entries are skipped.
    public init(_ value: String) {
        var links: [String: URL] = [:]
        var rest = Substring(value)
        while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
            let target = rest[rest.index(after: open)..<close]
            let parameters = rest[rest.index(after: close)...].prefix { $0 != "<" }
            rest = rest[rest.index(after: close)...].drop(while: { $0 != "<" })
            guard let url = URL(string: target.trimmingCharacters(in: .whitespaces)) else { continue }
            for relation in Self.relations(in: parameters) where links[relation] == nil {
                links[relation] = url
            }
        }
        self.links = links
    }

    /// `rel="next last"` names two relations; `rel=next` is allowed unquoted.
    private static func relations(in parameters: Substring) -> [String] {
        for parameter in parameters.split(separator: ";") {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == "rel" else { continue }
            let value = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\", "))
            return value.split(separator: " ").map { $0.lowercased() }
        }
        return []
    }

    public subscript(relation: String) -> URL? { links[relation.lowercased()] }
    public var next: URL? { self["next"] }
}

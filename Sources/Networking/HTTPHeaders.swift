/// Response header fields with case-insensitive names, as HTTP defines them.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    private var fields: [String: (name: String, value: String)] = [:]

    public init(_ fields: [String: String] = [:]) {
        for (name, value) in fields { self[name] = value }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { self[name] = value }
    }

    /// The value of the field called `name`, whatever its case.
    public subscript(name: String) -> String? {
        get { fields[name.lowercased()]?.value }
        set { fields[name.lowercased()] = newValue.map { (name, $0) } }
    }

    /// The fields as a dictionary keyed by their names as received.
    public var dictionary: [String: String] {
        Dictionary(uniqueKeysWithValues: fields.values.map { ($0.name, $0.value) })
    }

    public func makeIterator() -> some IteratorProtocol<(name: String, value: String)> {
        fields.values.sorted { $0.name.lowercased() < $1.name.lowercased() }.makeIterator()
    }

    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.mapValues(\.value) == rhs.fields.mapValues(\.value)
    }
}

import Foundation

/// A JSON value as Unsplash sent it, to change a few members of a stored photo and send the
/// rest back unchanged: numbers stay integers or fractions, `null` stays `null`.
enum MirrorJSON: Codable, Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([MirrorJSON])
    case object([String: MirrorJSON])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([MirrorJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: MirrorJSON].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The JSON text `data` holds; nil when it is not JSON.
    static func parse(_ data: Data) -> MirrorJSON? {
        try? JSONDecoder().decode(MirrorJSON.self, from: data)
    }

    /// The member `name` of an object; nil for anything else.
    subscript(name: String) -> MirrorJSON? {
        get {
            guard case .object(let members) = self else { return nil }
            return members[name]
        }
        set {
            guard case .object(var members) = self else { return }
            members[name] = newValue
            self = .object(members)
        }
    }

    var text: String? {
        guard case .string(let value) = self else { return nil }
        return value
    }

    /// Encoded as compact UTF-8, slashes unescaped as Unsplash sends them.
    var encoded: Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        // Every case encodes: no non-finite number can come from parsed JSON.
        return (try? encoder.encode(self)) ?? Data("null".utf8)
    }
}

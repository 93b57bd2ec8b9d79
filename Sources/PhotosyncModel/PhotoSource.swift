import Foundation

/// A list of photos photosync can mirror: the editorial feed, a photographer's photos or likes,
/// a collection, a topic, or a search.
///
/// Written as `feed`, `user:USERNAME`, `likes:USERNAME`, `collection:ID`, `topic:SLUG` or
/// `search:QUERY` (see ``init(parsing:)``); ``description`` gives that form back, which is also
/// the source's name in the database.
public enum PhotoSource: Hashable, Sendable, CustomStringConvertible {
    /// `GET /photos`.
    case feed
    /// `GET /users/:username/photos`.
    case user(String)
    /// `GET /users/:username/likes`.
    case likes(String)
    /// `GET /collections/:id/photos`.
    case collection(String)
    /// `GET /topics/:id_or_slug/photos`.
    case topic(String)
    /// `GET /search/photos?query=`.
    case search(String)

    /// The longest search query accepted.
    public static let maxQueryLength = 512

    /// The forms a source is written in, for messages.
    public static let validForms = "feed, user:USERNAME, likes:USERNAME, collection:ID, topic:SLUG or search:QUERY"

    /// Reads `text` in one of the ``validForms``.
    ///
    /// Everything after `search:` is the query, spaces and commas included. A username, a
    /// collection id and a topic slug are single path segments of Unsplash's alphabet
    /// (letters, digits, `_` and `-`); collection ids are strings in the API (`"3773378"`), so
    /// letters are allowed there too.
    /// - Throws: ``SourceError`` naming the text and what is wrong with it.
    public init(parsing text: String) throws(SourceError) {
        if text == "feed" {
            self = .feed
            return
        }
        guard let colon = text.firstIndex(of: ":") else {
            throw SourceError(
                text: text,
                problem: Self.isKnownKind(text) ? "needs a value after the colon" : "is not a known kind of source")
        }
        let kind = String(text[..<colon])
        let value = String(text[text.index(after: colon)...])
        switch kind {
        case "user": self = .user(try Self.segment(value, text: text, naming: "a username"))
        case "likes": self = .likes(try Self.segment(value, text: text, naming: "a username"))
        case "collection": self = .collection(try Self.segment(value, text: text, naming: "a collection id"))
        case "topic": self = .topic(try Self.segment(value, text: text, naming: "a topic slug or id"))
        case "search":
            guard !value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                throw SourceError(text: text, problem: "has an empty search query")
            }
            guard value.count <= Self.maxQueryLength else {
                throw SourceError(
                    text: text,
                    problem: "has a search query longer than \(Self.maxQueryLength) characters (\(value.count))")
            }
            guard !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw SourceError(text: text, problem: "has a control character in its search query")
            }
            self = .search(value)
        default:
            throw SourceError(text: text, problem: "is not a known kind of source")
        }
    }

    public var description: String {
        switch self {
        case .feed: "feed"
        case .user(let name): "user:\(name)"
        case .likes(let name): "likes:\(name)"
        case .collection(let id): "collection:\(id)"
        case .topic(let slug): "topic:\(slug)"
        case .search(let query): "search:\(query)"
        }
    }

    private static func isKnownKind(_ text: String) -> Bool {
        ["user", "likes", "collection", "topic", "search"].contains(text)
    }

    private static let segmentCharacters = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")

    private static func segment(_ value: String, text: String, naming what: String) throws(SourceError) -> String {
        guard !value.isEmpty else { throw SourceError(text: text, problem: "needs \(what) after the colon") }
        guard value.count <= 128, value.unicodeScalars.allSatisfy({ Self.segmentCharacters.contains($0) }) else {
            throw SourceError(text: text, problem: "needs \(what) of letters, digits, _ and - only")
        }
        return value
    }
}

/// A source that is not in one of ``PhotoSource/validForms``.
public struct SourceError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text as given.
    public var text: String
    /// What is wrong with it: "is not a known kind of source".
    public var problem: String

    public var description: String {
        "\(Self.quoted(text)) \(problem); a source is \(PhotoSource.validForms)"
    }

    /// Quoted, with control characters escaped, so the message stays on one line.
    private static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.prefix(80).unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                result += "\\u{\(String(scalar.value, radix: 16))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + (text.count > 80 ? "...\"" : "\"")
    }
}

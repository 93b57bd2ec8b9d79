import Basics
import Foundation

/// photosync's search syntax (README's `photosync search`: plain words that must all match,
/// `"quoted phrases"`, `prefix*`, `AND`, `OR`, `NOT` and parentheses, as SQLite's FTS5 reads
/// them) written as a PostgreSQL `tsquery`, so that the same text searches both stores.
///
/// Precedence is FTS5's: `NOT` binds tightest, then `AND` (or words side by side), then `OR`;
/// `NOT` joins two terms (`a NOT b` is `a & !b`), and one at the start is refused, as FTS5
/// refuses it. Every word and phrase becomes a quoted lexeme, so no character of the input is
/// read as `tsquery` syntax; PostgreSQL's parser then splits it into words as it splits the
/// documents, and a phrase's words must follow each other (`<->`).
struct PostgresSearchQuery: Equatable {
    /// The `tsquery` text, for `to_tsquery('simple', photosync_fold(...))`.
    let tsquery: String

    /// - Throws: ``Invalid`` for text the syntax does not allow: an unclosed quote or
    ///   parenthesis, an operator without a term on each side, nothing to search for.
    init(parsing text: String) throws(Invalid) {
        var parser = Parser(tokens: try Self.tokens(of: text))
        let expression = try parser.parseOr()
        guard parser.position == parser.tokens.count else { throw Invalid() }
        tsquery = expression
    }

    /// The text is not in the search syntax.
    struct Invalid: Error {}

    enum Token: Equatable {
        case word(String, prefix: Bool)
        case phrase(String)
        case and, or, not, open, close
    }

    /// The tokens of `text`, read by Unicode scalar as FTS5 reads bytes: a quote or a parenthesis
    /// is one whatever combining mark follows it (by `Character`, `"\u{301}` is neither).
    static func tokens(of text: String) throws(Invalid) -> [Token] {
        var tokens: [Token] = []
        var rest = Substring(text).unicodeScalars
        while let first = rest.first {
            if first.properties.isWhitespace {
                rest.removeFirst()
            } else if first == "\"" {
                // FTS5 writes a quote inside a phrase as two.
                var phrase = String.UnicodeScalarView()
                rest.removeFirst()
                var closed = false
                while let scalar = rest.popFirst() {
                    if scalar == "\"" {
                        if rest.first == "\"" {
                            phrase.append("\"")
                            rest.removeFirst()
                        } else {
                            closed = true
                            break
                        }
                    } else {
                        phrase.append(scalar)
                    }
                }
                guard closed else { throw Invalid() }
                tokens.append(.phrase(String(phrase)))
            } else if first == "(" || first == ")" {
                tokens.append(first == "(" ? .open : .close)
                rest.removeFirst()
            } else {
                let end =
                    rest.firstIndex { $0.properties.isWhitespace || $0 == "\"" || $0 == "(" || $0 == ")" }
                    ?? rest.endIndex
                let word = String(rest[..<end])
                rest = rest[end...]
                switch word {
                case "AND": tokens.append(.and)
                case "OR": tokens.append(.or)
                case "NOT": tokens.append(.not)
                default:
                    let prefix = word.unicodeScalars.last == "*"
                    let stem = prefix ? String(word.unicodeScalars.dropLast()) : word
                    guard !stem.isEmpty, !stem.unicodeScalars.contains("*") else { throw Invalid() }
                    tokens.append(.word(stem, prefix: prefix))
                }
            }
        }
        return tokens
    }

    /// Recursive descent over the tokens, each rule returning its `tsquery` text in parentheses
    /// where it joins several terms.
    struct Parser {
        let tokens: [Token]
        var position = 0

        var next: Token? { position < tokens.count ? tokens[position] : nil }

        mutating func parseOr() throws(Invalid) -> String {
            var terms = [try parseAnd()]
            while next == .or {
                position += 1
                terms.append(try parseAnd())
            }
            return terms.count == 1 ? terms[0] : "(" + terms.joined(separator: " | ") + ")"
        }

        mutating func parseAnd() throws(Invalid) -> String {
            var terms = [try parseNot()]
            while let token = next, token != .or, token != .close {
                if token == .and { position += 1 }
                terms.append(try parseNot())
            }
            return terms.count == 1 ? terms[0] : "(" + terms.joined(separator: " & ") + ")"
        }

        mutating func parseNot() throws(Invalid) -> String {
            var expression = try parseTerm()
            while next == .not {
                position += 1
                expression = "(" + expression + " & !" + (try parseTerm()) + ")"
            }
            return expression
        }

        mutating func parseTerm() throws(Invalid) -> String {
            guard let token = next else { throw Invalid() }
            position += 1
            switch token {
            case .word(let word, let prefix):
                return Self.lexeme(word) + (prefix ? ":*" : "")
            case .phrase(let phrase):
                guard !phrase.allSatisfy(\.isWhitespace) else { throw Invalid() }
                return Self.lexeme(phrase)
            case .open:
                let inner = try parseOr()
                guard next == .close else { throw Invalid() }
                position += 1
                return inner
            case .and, .or, .not, .close:
                throw Invalid()
            }
        }

        /// `text` quoted as one `tsquery` operand: a quote doubled, a backslash escaped.
        static func lexeme(_ text: String) -> String {
            "'" + text.replacingEach("\\", with: "\\\\").replacingEach("'", with: "''") + "'"
        }
    }
}

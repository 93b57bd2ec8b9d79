import Foundation

/// A search in photosync's syntax (README's `photosync search`): plain words that must all
/// match, `"quoted phrases"`, `prefix*` (and `"a phrase"*`), `AND`, `OR`, `NOT` and parentheses,
/// read once here for every store: each driver writes it in its own dialect (FTS5's `MATCH`, a
/// `tsquery`), and the ranking (``SearchRanking``) reads its words.
///
/// Precedence is FTS5's: `NOT` binds tightest, then `AND` (or words side by side), then `OR`;
/// `NOT` joins two terms (`a NOT b`), and one at the start is refused, as FTS5 refuses it. Any
/// other character is part of a word, so `dog's` and `black-and-white` are words (each store
/// splits them into the words of its index, as it splits a document: a phrase).
public indirect enum SearchExpression: Sendable, Equatable {
    case term(SearchTerm)
    /// Photos that match every one.
    case and([SearchExpression])
    /// Photos that match any one.
    case or([SearchExpression])
    /// Photos that match the first and not the second.
    case not(SearchExpression, SearchExpression)

    /// The search `text` reads as, or nil when none of its words or phrases holds a letter or a
    /// digit (`-`, `"..."`): such a term is left out, as PostgreSQL leaves it out (FTS5 would
    /// match nothing with it, so that `black & white` found nothing), and a search with no term
    /// left matches no photo.
    /// - Throws: `StoreError.invalidSearch(text)` for text the syntax does not allow: an
    ///   unclosed quote or parenthesis, an operator without a term on each side, a `*` that
    ///   does not end a word, parentheses nested deeper than 32, nothing at all.
    public static func parse(_ text: String) throws(StoreError) -> SearchExpression? {
        do {
            var parser = Parser(tokens: try tokens(of: text))
            let expression = try parser.parseOr()
            guard parser.position == parser.tokens.count else { throw Invalid() }
            return expression
        } catch {
            throw .invalidSearch(text)
        }
    }

    /// The words and phrases a photo must or may have, in the order written, each once; not
    /// those under a `NOT`.
    public var wantedTerms: [SearchTerm] {
        var terms: [SearchTerm] = []
        func collect(_ expression: SearchExpression) {
            switch expression {
            case .term(let term): if !terms.contains(term) { terms.append(term) }
            case .and(let parts), .or(let parts): parts.forEach(collect)
            case .not(let wanted, _): collect(wanted)
            }
        }
        collect(self)
        return terms
    }

    /// The expression as a dialect writes it: each term by `term`, the operators by `join`
    /// (`and`, `or`) and `not`, each with its operands written already.
    public func written(
        term: (SearchTerm) throws -> String, join: (Operator, [String]) -> String, not: (String, String) -> String
    ) rethrows -> String {
        switch self {
        case .term(let searched): return try term(searched)
        case .and(let parts): return join(.and, try parts.map { try $0.written(term: term, join: join, not: not) })
        case .or(let parts): return join(.or, try parts.map { try $0.written(term: term, join: join, not: not) })
        case .not(let wanted, let unwanted):
            return not(
                try wanted.written(term: term, join: join, not: not),
                try unwanted.written(term: term, join: join, not: not))
        }
    }

    public enum Operator: Sendable { case and, or }

    struct Invalid: Error {}

    enum Token: Equatable {
        case term(SearchTerm)
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
                let prefix = rest.first == "*"
                if prefix { rest.removeFirst() }
                tokens.append(.term(SearchTerm(String(phrase), prefix: prefix)))
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
                    tokens.append(.term(SearchTerm(stem, prefix: prefix)))
                }
            }
        }
        return tokens
    }

    /// Recursive descent over the tokens. Each rule returns nil for a part whose terms all
    /// lack words; syntax is checked all the same.
    struct Parser {
        let tokens: [Token]
        var position = 0
        /// Parentheses open around the token being read: each level is a few frames of the
        /// stack, and a search comes from any client of `serve` (a `q` of 80,000 `(` would
        /// overflow a thread's stack), so nesting deeper than ``maximumDepth`` is refused.
        var depth = 0
        static let maximumDepth = 32

        var next: Token? { position < tokens.count ? tokens[position] : nil }

        mutating func parseOr() throws(Invalid) -> SearchExpression? {
            var parts = [try parseAnd()]
            while next == .or {
                position += 1
                parts.append(try parseAnd())
            }
            let kept = parts.compactMap { $0 }
            return kept.count > 1 ? .or(kept) : kept.first
        }

        mutating func parseAnd() throws(Invalid) -> SearchExpression? {
            var parts = [try parseNot()]
            while let token = next, token != .or, token != .close {
                if token == .and { position += 1 }
                parts.append(try parseNot())
            }
            let kept = parts.compactMap { $0 }
            return kept.count > 1 ? .and(kept) : kept.first
        }

        mutating func parseNot() throws(Invalid) -> SearchExpression? {
            var expression = try parseTerm()
            while next == .not {
                position += 1
                let unwanted = try parseTerm()
                if let wanted = expression, let unwanted { expression = .not(wanted, unwanted) }
            }
            return expression
        }

        mutating func parseTerm() throws(Invalid) -> SearchExpression? {
            guard let token = next else { throw Invalid() }
            position += 1
            switch token {
            case .term(let term):
                if term.text.unicodeScalars.allSatisfy(\.properties.isWhitespace) { throw Invalid() }
                return term.words.isEmpty ? nil : .term(term)
            case .open:
                depth += 1
                guard depth <= Self.maximumDepth else { throw Invalid() }
                let inner = try parseOr()
                guard next == .close else { throw Invalid() }
                position += 1
                depth -= 1
                return inner
            case .and, .or, .not, .close:
                throw Invalid()
            }
        }
    }
}

/// A word or a quoted phrase of a search.
public struct SearchTerm: Sendable, Hashable {
    /// As written, without its quotes (a quote inside is one) or its `*`.
    public let text: String
    /// Its last word is a prefix: `moun*`, `"mountain la"*`.
    public let prefix: Bool
    /// Its words as the ranking splits them (``SearchWords``): one for a plain word, several
    /// for a phrase or a word with punctuation inside (`dog's`), none for punctuation alone.
    public let words: [String]

    public init(_ text: String, prefix: Bool = false) {
        self.text = text
        self.prefix = prefix
        self.words = SearchWords.words(of: text)
    }
}

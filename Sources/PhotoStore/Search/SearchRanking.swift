import Foundation

/// The order of a search by relevance, the same on every store: each store finds the matches
/// (at most ``PhotoCatalog/rankLimit``) with the fields of their search document, and this ranks
/// them, from those facts alone.
///
/// The formula is BM25F over the matches themselves:
/// - A photo that has more of the wanted words and phrases (``SearchExpression/wantedTerms``:
///   both sides of an `OR`) comes first: `cat OR dog` lists the photos with both before the others.
/// - Then by score, the sum over those terms of `idf × tf × (k1 + 1) / (tf + k1)`, where `tf` adds
///   up the term's occurrences in each field times the field's ``SearchField/weight`` (a word in
///   the description counts three times one in the photographer's name), each divided by the
///   field's length against its average among the matches (`b`), and saturates (`k1`): a word
///   said five times is not five times as relevant. `idf` weighs a term by how few of the
///   matches have it (`ln(1 + (N - n + 0.5) / (n + 0.5))`): in `cat OR dog`, the rarer word.
/// - Then newest first (`created_at`, a photo without one last), then the photo stored last.
///
/// The statistics are the matches', not the whole mirror's: the same whatever else the store
/// holds, on either store, and free (SQLite's bm25 counted every photo that had a word of the
/// search, for each search). They count integers, so no order of the matches changes a score.
public struct SearchRanking: Sendable {
    public let terms: [SearchTerm]

    /// Term frequency saturation, as bm25's.
    static let k1 = 1.2
    /// How much a field's length weighs, as bm25's.
    static let b = 0.75

    public init(_ expression: SearchExpression) {
        terms = expression.wantedTerms
    }

    /// The keys of `matches`, best first.
    public func ranked<Key>(_ matches: [SearchMatch<Key>]) -> [Key] {
        let fields = SearchField.allCases
        let documents = matches.map { match in match.fields.map { SearchWords.words(of: $0 ?? "") } }
        let count = Double(matches.count)
        let averageLength = fields.indices.map { field in
            Double(documents.reduce(0) { $0 + $1[field].count }) / max(count, 1)
        }
        // Each photo's occurrences of each term, field by field.
        let occurrences = documents.map { words in terms.map { term in words.map { term.occurrences(in: $0) } } }
        let idf = terms.indices.map { index in
            let having = Double(occurrences.filter { $0[index].contains { $0 > 0 } }.count)
            return log(1 + (count - having + 0.5) / (having + 0.5))
        }
        let scored = matches.indices.map { match in
            var score = 0.0
            var found = 0
            for term in terms.indices {
                var frequency = 0.0
                for field in fields.indices where occurrences[match][term][field] > 0 {
                    let length = Double(documents[match][field].count) / averageLength[field]
                    frequency +=
                        fields[field].weight * Double(occurrences[match][term][field]) / (1 - Self.b + Self.b * length)
                }
                guard frequency > 0 else { continue }
                found += 1
                score += idf[term] * frequency * (Self.k1 + 1) / (frequency + Self.k1)
            }
            return (match: match, found: found, score: score)
        }
        return scored.sorted { left, right in
            if left.found != right.found { return left.found > right.found }
            if left.score != right.score { return left.score > right.score }
            let (a, b) = (matches[left.match], matches[right.match])
            if a.createdAt != b.createdAt {
                guard let first = a.createdAt else { return false }
                guard let second = b.createdAt else { return true }
                return first > second
            }
            return a.sequence > b.sequence
        }.map { matches[$0.match].key }
    }
}

/// A photo a search matched, as a store hands it to the ranking.
public struct SearchMatch<Key>: Sendable where Key: Sendable {
    /// What the store lists the photo by (a row id, an id).
    public var key: Key
    public var createdAt: Date?
    public var sequence: Int64
    /// The texts of its search document, in the order of ``SearchField/allCases`` (nil for a
    /// field without text), as both stores keep them.
    public var fields: [String?]

    public init(key: Key, createdAt: Date?, sequence: Int64, fields: [String?]) {
        precondition(fields.count == SearchField.allCases.count, "a text for each field")
        self.key = key
        self.createdAt = createdAt
        self.sequence = sequence
        self.fields = fields
    }

    public init(key: Key, createdAt: Date?, sequence: Int64, document: [SearchField: String]) {
        self.init(key: key, createdAt: createdAt, sequence: sequence, fields: SearchField.allCases.map { document[$0] })
    }
}

/// The fields of a photo's search document, as both stores index them, in their order: FTS5's
/// columns, the parts of PostgreSQL's `tsvector`.
public enum SearchField: String, CaseIterable, Sendable {
    case description, altDescription, userName, userUsername, location, tags

    /// What one occurrence of a word here counts for: what the photo shows (its descriptions)
    /// more than where (its location and tags), and those more than who took it.
    public var weight: Double {
        switch self {
        case .description, .altDescription: 3
        case .location, .tags: 2
        case .userName, .userUsername: 1
        }
    }
}

extension SearchTerm {
    /// How many times the term is in `words`: its words in a row, the last one as a prefix
    /// when ``prefix`` says so.
    func occurrences(in words: [String]) -> Int {
        guard !self.words.isEmpty, words.count >= self.words.count else { return 0 }
        let last = self.words.count - 1
        var found = 0
        for start in 0...(words.count - self.words.count) {
            var matches = true
            for offset in 0...last {
                // By bytes, as the indexes compare words.
                let word = words[start + offset].utf8
                let wanted = self.words[offset].utf8
                let same = (offset == last && prefix) ? word.starts(with: wanted) : word.elementsEqual(wanted)
                if !same {
                    matches = false
                    break
                }
            }
            if matches { found += 1 }
        }
        return found
    }
}

import Basics
import Foundation
import GRDB
import PhotoStore

/// A search as SQLite's index reads it: the text of `photo_search MATCH ?`, and the matches with
/// their document's fields for the ranking (``SearchRanking``).
struct SQLiteSearch {
    let expression: SearchExpression

    /// The search of `text`, or nil when it matches no photo (no term with a letter or digit).
    /// - Throws: `StoreError.invalidSearch` when the syntax does not allow it.
    init?(_ text: String) throws(StoreError) {
        guard let expression = try SearchExpression.parse(text) else { return nil }
        self.expression = expression
    }

    /// The expression in FTS5's syntax: every term a quoted phrase, which FTS5 splits into
    /// words as it split the documents (`dog's` is the phrase `dog s`, on both stores), `*`
    /// after a prefix, every operator in parentheses. So no input reaches FTS5's own syntax
    /// (column filters, `NEAR`, `^`), which PostgreSQL has no counterpart of.
    var match: String {
        expression.written(
            term: { "\"" + $0.text.replacingEach("\"", with: "\"\"") + "\"" + ($0.prefix ? "*" : "") },
            join: { join, parts in "(" + parts.joined(separator: join == .and ? " AND " : " OR ") + ")" },
            not: { "(\($0) NOT \($1))" })
    }

    /// The columns of the matches the ranking reads: the photo's row id, creation date and
    /// sequence, then its document's fields in ``SearchField``'s order, from a selection that
    /// joins `photo_search` to `photo`.
    static let rankedColumns = """
        photo.rowid, photo.created_at, photo.sequence, photo_search.description, photo_search.alt_description,
        photo_search.user_name, photo_search.user_username, photo_search.location, photo_search.tags
        """

    /// The matches' row ids, best first, from the rows of ``rankedColumns``: read from the
    /// statement as it steps, not copied into rows first (1.8 ms of the 6.9 a ranking of 761
    /// matches took).
    func ranked(_ rows: RowCursor) throws -> [Int64] {
        var matches: [SearchMatch<Int64>] = []
        while let row = try rows.next() {
            matches.append(
                SearchMatch(
                    key: row[0] as Int64, createdAt: (row[1] as StoredDate?)?.date, sequence: row[2],
                    fields: (3..<9).map { row[$0] as String? }))
        }
        return SearchRanking(expression).ranked(matches)
    }
}

import Basics
import Foundation
import GRDB

/// A search as SQLite's index reads it: the text of `photo_search MATCH ?`.
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
}

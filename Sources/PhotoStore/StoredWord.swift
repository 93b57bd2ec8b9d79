/// A value the schema stores as one of a few fixed words: ``ImageStatus``, ``ImageFailureClass``.
///
/// Both drivers write these words into their statements from here (``sqlLiteral``), never by
/// hand. A partial index (`image_stored_by_fetch ... WHERE status = 'stored'`) serves a query
/// only when the query's text holds the same literal: neither SQLite's planner nor PostgreSQL's
/// generic plans look into a bound parameter, so the word is written into the text, not bound.
package protocol StoredWord: RawRepresentable<String> {}

extension ImageStatus: StoredWord {}
extension ImageFailureClass: StoredWord {}

extension StoredWord {
    /// The value as an SQL string literal (`'stored'`). The raw values are fixed words without
    /// quotes, so this needs no escaping.
    package var sqlLiteral: String { "'\(rawValue)'" }
}

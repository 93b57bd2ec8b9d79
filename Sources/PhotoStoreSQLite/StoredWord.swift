import GRDB
import PhotoStore
import PhotosyncModel

// The store's values in SQLite's columns, as their raw values (GRDB's "Custom Value Types").
extension ImageStatus: DatabaseValueConvertible {}
extension ImageFailureClass: DatabaseValueConvertible {}

/// A value the schema stores as one of a few fixed words.
protocol StoredWord: RawRepresentable<String> {}

extension ImageStatus: StoredWord {}
extension ImageFailureClass: StoredWord {}

extension StoredWord {
    /// The value as an SQL string literal (`'stored'`), for statements whose text must name it.
    ///
    /// A partial index (`image_stored_by_fetch ... WHERE status = 'stored'`) serves a query only
    /// when the query's text holds the same literal: SQLite's planner does not look into a bound
    /// parameter. So statements write a status from here, never by hand and never bound where an
    /// index needs it. The raw values are fixed words without quotes, so this needs no escaping.
    var sqlLiteral: String { "'\(rawValue)'" }
}

/// A variant is stored as its name (`regular`), as Unsplash's `urls` object keys it.
extension ImageVariant: DatabaseValueConvertible {}

import GRDB
import PhotosyncModel

/// Where an image job stands, as the `image.status` column stores it.
///
/// A job is `pending` until its bytes are `stored`, or `failed` after a permanent failure; a
/// stored image whose bytes were freed to keep within `storage_limit` is `pruned`. The raw values
/// are the column's text (the schema's `CHECK` lists them); migrations keep their own literals,
/// since they are history and never change.
public enum ImageStatus: String, Sendable, CaseIterable, DatabaseValueConvertible {
    case pending
    case stored
    case failed
    case pruned
}

/// Why an image's last attempt failed, as `image.failure_class` stores it: see ``ImageQueue``.
public enum ImageFailureClass: String, Sendable, CaseIterable, DatabaseValueConvertible {
    /// Retried later, by itself: the job stays pending with a next attempt time.
    case transient
    /// Failed for good: the job is `failed` until a person requeues it.
    case permanent
}

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

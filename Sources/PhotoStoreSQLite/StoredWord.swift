import GRDB
import PhotoStore
import PhotosyncModel

// The store's values in SQLite's columns, as their raw values (GRDB's "Custom Value Types").
extension ImageStatus: DatabaseValueConvertible {}
extension ImageFailureClass: DatabaseValueConvertible {}

/// A variant is stored as its name (`regular`), as Unsplash's `urls` object keys it.
extension ImageVariant: DatabaseValueConvertible {}

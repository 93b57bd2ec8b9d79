import Foundation
import GRDB
import PhotoStore

/// GRDB stores and reads ``StoredDate``'s text (its comment says why).
extension StoredDate: DatabaseValueConvertible {
    package var databaseValue: DatabaseValue {
        Self.text(date).map { $0.databaseValue } ?? date.databaseValue
    }

    package static func fromDatabaseValue(_ dbValue: DatabaseValue) -> StoredDate? {
        if case .string(let text) = dbValue.storage, let date = date(text) {
            return StoredDate(date)
        }
        return Date.fromDatabaseValue(dbValue).map(StoredDate.init)
    }
}

extension Row {
    /// The date in `column`, read as GRDB reads it but without its `Calendar` (see ``StoredDate``).
    func decodeDate(forColumn column: String) throws -> Date {
        try (decode(forColumn: column) as StoredDate).date
    }

    /// The date in `column`, or nil when it is NULL (see ``decodeDate(forColumn:)``).
    func decodeDateIfPresent(forColumn column: String) throws -> Date? {
        try (decode(forColumn: column) as StoredDate?)?.date
    }
}

import Foundation
import GRDB
import PhotoStore

/// A table's statements for `photosync copy`, made once from its description
/// (``MirrorTableDescription``): a read in key order from a key on, and an insert of one row,
/// prepared once a copy and run for each row.
struct SQLiteMirrorStatements: Sendable {
    /// Every column of the description, in its order, of the rows after a key (`?`), at most a
    /// number (`?`) of them.
    let select: String
    /// One row: its written columns' values (``written``) as its placeholders.
    let insert: String
    /// Where the written columns' values are in a row's.
    let written: [Int]
    /// Where a row's bytes are in its values, kept beside it by ``insertBytes``.
    let bytes: Int?
    /// A stored image's bytes beside their image: the image's row id, then the bytes.
    let insertBytes: String?

    /// Each table's statements.
    static let of = Dictionary(
        uniqueKeysWithValues: MirrorTable.allCases.map { ($0, SQLiteMirrorStatements($0.tableDescription)) })

    private init(_ description: MirrorTableDescription) {
        let table = description.name
        let key = "\(table).\(description.key.name)"
        let read = description.columns.map { column in
            if let reference = column.reference {
                "(SELECT \(reference.naming) FROM \(reference.table) WHERE id = \(table).\(reference.column))"
            } else if column.type == .bytes {
                // An image's bytes are a row of `image_data` (read by incremental blob I/O),
                // which only a stored image's are.
                """
                (SELECT image_data.bytes FROM image_data WHERE image_data.image_id = \(table).id
                    AND \(table).status = \(ImageStatus.stored.sqlLiteral))
                """
            } else {
                "\(table).\(column.name)"
            }
        }
        select = """
            SELECT \(read.joined(separator: ", ")) FROM \(table) WHERE \(key) > ? ORDER BY \(key) LIMIT ?
            """
        written = description.columns.indices.filter {
            !description.columns[$0].isRenumbered && description.columns[$0].type != .bytes
        }
        let columns = written.map { description.columns[$0] }
        let names = columns.map { $0.reference?.column ?? $0.name }
        let values = columns.map { column in
            column.reference.map { "(SELECT id FROM \($0.table) WHERE \($0.naming) = ?)" } ?? "?"
        }
        insert = """
            INSERT INTO \(table) (\(names.joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))
            """
        bytes = description.columns.firstIndex { $0.type == .bytes }
        insertBytes = bytes.map { _ in "INSERT INTO image_data (image_id, bytes) VALUES (?, ?)" }
    }
}

extension MirrorValue {
    /// The value SQLite keeps in a column of `column`'s type: a date as ``StoredDate``'s text, a
    /// JSON document as its text (or the blob an older version wrote).
    ///
    /// - Throws: ``MirrorValueMismatch`` for a value of another type.
    init(_ stored: DatabaseValue, _ column: MirrorColumn, table: String) throws(MirrorValueMismatch) {
        guard let value = Self.decoded(stored, as: column.type) else {
            throw MirrorValueMismatch(table: table, column: column.name, value: .text(stored.description))
        }
        self = value
    }

    /// The value of `stored` read as `type`, or nil when it is of another type. Kept apart from
    /// the throwing initializer: Swift 6.3.1's optimizer crashes on the two in one function
    /// (CopyPropagation, "Found outside of lifetime use", in a release build).
    static func decoded(_ stored: DatabaseValue, as type: MirrorColumnType) -> MirrorValue? {
        if stored.isNull { return .null }
        return switch type {
        case .text: String.fromDatabaseValue(stored).map(MirrorValue.text)
        case .json: StoredJSON.fromDatabaseValue(stored).map { .text(String(decoding: $0.data, as: UTF8.self)) }
        case .integer: Int64.fromDatabaseValue(stored).map(MirrorValue.integer)
        case .boolean: Bool.fromDatabaseValue(stored).map(MirrorValue.boolean)
        case .date: StoredDate.fromDatabaseValue(stored).map { .date($0.date) }
        case .bytes: Data.fromDatabaseValue(stored).map(MirrorValue.bytes)
        }
    }

    /// The value as SQLite keeps it (see ``init(_:_:table:)``).
    var stored: DatabaseValue {
        switch self {
        case .null: .null
        case .text(let text): text.databaseValue
        case .integer(let integer): integer.databaseValue
        case .boolean(let boolean): boolean.databaseValue
        case .date(let date): StoredDate(date).databaseValue
        case .bytes(let data): data.databaseValue
        }
    }
}

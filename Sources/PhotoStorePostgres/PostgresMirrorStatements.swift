import Foundation
import PhotoStore
import PostgresNIO

/// A table's statements for `photosync copy`, made once from its description
/// (``MirrorTableDescription``): a read in key order from a key on, and an insert of a whole
/// batch in one statement, its rows one JSON document unpacked by `jsonb_to_recordset`.
struct PostgresMirrorStatements: Sendable {
    /// The read up to its key's bound: `... WHERE key >`.
    let select: String
    /// The read after its key's bound, up to its limit: `ORDER BY key LIMIT`.
    let order: String
    /// Where the columns the read gives are in a row's values: all but the bytes, which are
    /// chunk rows of their own.
    let read: [Int]
    /// The document's columns, and where their values are in a row's.
    let written: [(index: Int, name: String)]
    /// The insert, before and after its document.
    let insert: (before: String, after: String)

    /// Each table's statements.
    static let of = Dictionary(
        uniqueKeysWithValues: MirrorTable.allCases.map { ($0, PostgresMirrorStatements($0.tableDescription)) })

    private init(_ description: MirrorTableDescription) {
        let table = description.name
        let columns = description.columns
        let beside = BesideColumn.all.first { $0.table == description.table }
        read = columns.indices.filter { columns[$0].type != .bytes }
        let expressions = read.map { index in
            let column = columns[index]
            if let reference = column.reference {
                return "(SELECT \(reference.naming) FROM \(reference.table) WHERE id = \(table).\(reference.column))"
            }
            if let beside, beside.column == column.name { return "\(beside.storedIn).\(beside.storedAs)" }
            return "\(table).\(column.name)"
        }
        let key = "\(table).\(description.key.name)"
        let join = beside.map { " LEFT JOIN \($0.storedIn) ON \($0.storedIn).\($0.keyedBy) = \(table).id" } ?? ""
        select = "SELECT \(expressions.joined(separator: ", ")) FROM \(table)\(join) WHERE \(key) >"
        order = "ORDER BY \(key) LIMIT"
        let written = columns.indices.filter { !columns[$0].isRenumbered && columns[$0].type != .bytes }
        self.written = written.map { ($0, columns[$0].name) }
        insert = Self.insert(description, written: written.map { columns[$0] }, beside: beside)
    }

    /// `WITH row AS (the document's rows) INSERT ...`, the rows in the document's order where the
    /// target numbers them (`n`, their place in the batch: a join may reorder them).
    private static func insert(
        _ description: MirrorTableDescription, written: [MirrorColumn], beside: BesideColumn?
    ) -> (before: String, after: String) {
        let table = description.name
        let recordset = written.map { "\($0.name) \($0.type.recordsetType)" } + ["n integer"]
        let own = written.filter { $0.name != beside?.column }
        var names = own.map { $0.reference?.column ?? $0.name }
        var values = own.map { column in
            if let reference = column.reference {
                return "(SELECT id FROM \(reference.table) WHERE \(reference.naming) = row.\(column.name))"
            }
            return column.type == .date ? "to_timestamp(row.\(column.name))" : "row.\(column.name)"
        }
        if let added = AddedColumn.all.first(where: { $0.table == description.table }) {
            names.append(added.column)
            values.append(added.value)
        }
        let order = description.key.isRenumbered ? " ORDER BY row.n" : ""
        var statement = """
            INSERT INTO \(table) (\(names.joined(separator: ", ")))
            SELECT \(values.joined(separator: ", ")) FROM row\(order)
            """
        if description.columns.contains(where: { $0.type == .bytes }) {
            // The ids the bytes' chunks are kept under, by the image each is of.
            statement += " RETURNING \(table).id, \(table).photo_id, \(table).variant"
        }
        if let beside {
            let columns = [beside.keyedBy, beside.alongside.stored, beside.storedAs]
            let values = ["row.id", "row.\(beside.alongside.from)", "to_timestamp(row.\(beside.column))"]
            statement = """
                inserted AS (\(statement))
                INSERT INTO \(beside.storedIn) (\(columns.joined(separator: ", ")))
                SELECT \(values.joined(separator: ", ")) FROM row WHERE row.\(beside.column) IS NOT NULL
                """
        }
        return (
            "WITH row AS (SELECT * FROM jsonb_to_recordset(",
            "::jsonb) AS row (\(recordset.joined(separator: ", "))))\(beside == nil ? "" : ",")\n\(statement)"
        )
    }
}

/// A date column of the description that PostgreSQL keeps beside its table's rows, in a table of
/// its own: a photo's tracking mark is a row of `download_tracking` (schema 6), so that marking
/// one does not touch every index of `photo`; a photo without one has no row there from the copy.
private struct BesideColumn {
    let table: MirrorTable
    let column: String
    let storedIn: String
    /// The column of `storedIn` holding the row's `id`.
    let keyedBy: String
    let storedAs: String
    /// A column of the row copied beside it too.
    let alongside: (stored: String, from: String)

    static let all = [
        BesideColumn(
            table: .photos, column: "download_tracked_at", storedIn: "download_tracking", keyedBy: "photo_id",
            storedAs: "tracked_at", alongside: ("photo_sequence", "sequence"))
    ]
}

/// A column PostgreSQL's table has that the description's does not, filled by the copy from
/// another table: an image carries its photo's sequence, so that the queue is due in the photos'
/// order by an index without a join.
private struct AddedColumn {
    let table: MirrorTable
    let column: String
    /// Its value for a row of the document, `row`.
    let value: String

    static let all = [
        AddedColumn(
            table: .images, column: "photo_sequence", value: "(SELECT sequence FROM photo WHERE id = row.photo_id)")
    ]
}

extension MirrorColumnType {
    /// The type `jsonb_to_recordset` reads a value of this column as: a date is seconds since 1970,
    /// for `to_timestamp`.
    fileprivate var recordsetType: String {
        switch self {
        case .text, .json: "text"
        case .integer: "bigint"
        case .boolean: "boolean"
        case .date: "double precision"
        case .bytes: "bytea"
        }
    }
}

extension MirrorValue {
    /// The value of a column of `type` in `cell`.
    init(_ cell: PostgresCell, _ type: MirrorColumnType) throws {
        self =
            switch type {
            case .text, .json: try cell.decode(String?.self).map(MirrorValue.text) ?? .null
            case .integer: try cell.decode(Int64?.self).map(MirrorValue.integer) ?? .null
            case .boolean: try cell.decode(Bool?.self).map(MirrorValue.boolean) ?? .null
            case .date: try cell.decode(Date?.self).map(MirrorValue.date) ?? .null
            case .bytes: try cell.decode(ByteBuffer?.self).map { .bytes(Data($0.readableBytesView)) } ?? .null
            }
    }

    /// The value in a `jsonb_to_recordset` document: `null`, a string, a number, a Boolean; a date
    /// as seconds since 1970.
    var document: Any {
        switch self {
        case .null: NSNull()
        case .text(let text): text
        case .integer(let integer): integer
        case .boolean(let boolean): boolean
        case .date(let date): date.timeIntervalSince1970
        case .bytes(let data): data.base64EncodedString()
        }
    }
}

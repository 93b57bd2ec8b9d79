import Foundation

/// One table as `photosync copy` moves it, the one description both drivers make their
/// statements from: its name, the column its rows are read in the order of, and its columns in
/// the order of a row's values.
public struct MirrorTableDescription: Sendable, Equatable {
    public let table: MirrorTable
    /// The table's name in both databases.
    public let name: String
    /// Every column a row of the copy carries, its key among them: the order of a row's
    /// ``MirrorValue``s.
    public let columns: [MirrorColumn]
    /// Where ``key`` stands in ``columns``.
    public let keyIndex: Int

    /// The column the copy reads the table in the order of, a batch after another's last key.
    public var key: MirrorColumn { columns[keyIndex] }

    /// The columns the copy writes into the table's own row: every column but a renumbered key
    /// and the bytes kept beside the row.
    public var writtenColumns: [MirrorColumn] {
        columns.filter { !$0.isRenumbered && $0.type != .bytes }
    }
}

/// What a column holds, which each driver reads and writes in its own database's way.
public enum MirrorColumnType: Sendable, Equatable {
    case text
    /// A JSON document, kept as its text.
    case json
    case integer
    case boolean
    case date
    /// An image's bytes, which each store keeps beside the image's row in its own way.
    case bytes
}

/// A column of a ``MirrorTableDescription``.
public struct MirrorColumn: Sendable, Equatable {
    /// Its name in both databases; for a ``reference``, the name the copy gives the value.
    public let name: String
    public let type: MirrorColumnType
    public let isNullable: Bool
    /// A row id the target numbers itself (in the order the copy writes the rows): read for the
    /// order of the copy, never written.
    public let isRenumbered: Bool
    /// How a column that refers to another table's row by its id is copied: by a value that
    /// names the row in every database.
    public let reference: MirrorReference?
}

/// A column holding the id of another table's row, copied as the value that names that row (a
/// membership's source, by the source's name): ids are each database's own.
public struct MirrorReference: Sendable, Equatable {
    /// The column of the referring table that holds the id.
    public let column: String
    /// The table referred to, its id in `id`.
    public let table: String
    /// The column of `table` whose value names the row.
    public let naming: String

    public init(column: String, table: String, naming: String) {
        self.column = column
        self.table = table
        self.naming = naming
    }
}

/// A value of a column, as the copy carries it between databases.
public enum MirrorValue: Sendable, Equatable {
    case null
    /// Text, a JSON document's too.
    case text(String)
    case integer(Int64)
    case boolean(Bool)
    case date(Date)
    case bytes(Data)
}

/// A value that did not fit its column: a driver read something its description does not say.
public struct MirrorValueMismatch: Error, Sendable, Equatable, CustomStringConvertible {
    public let table: String
    public let column: String
    public let value: MirrorValue

    public init(table: String, column: String, value: MirrorValue) {
        self.table = table
        self.column = column
        self.value = value
    }

    public var description: String {
        "\(table).\(column) cannot hold \(value)"
    }
}

/// A row of the copy whose mapping to and from a list of values is its table's description.
public protocol MirrorRow: Sendable, Equatable {
    /// The row's table and its columns, each bound to the row's field that holds it.
    static var mapping: MirrorMapping<Self> { get }
}

/// A table's description with the field of a row type each column is read from and written to:
/// the one place a table's columns are written.
public struct MirrorMapping<Row: Sendable>: Sendable {
    public let description: MirrorTableDescription
    let fields: [MirrorField<Row>]
    /// The row the fields are written into, before they are.
    let blank: Row
    let batch: @Sendable ([Row]) -> MirrorRows

    /// - Parameters:
    ///   - key: the name of the field whose column orders the table.
    ///   - blank: a row of placeholder values, which `fields` overwrite when a row is read.
    ///   - batch: the ``MirrorRows`` case of this table.
    public init(
        _ table: MirrorTable, name: String, key: String, blank: Row, batch: @escaping @Sendable ([Row]) -> MirrorRows,
        fields: [MirrorField<Row>]
    ) {
        guard let keyIndex = fields.firstIndex(where: { $0.column.name == key }) else {
            preconditionFailure("\(name) has no column \(key) to order it by")
        }
        description = MirrorTableDescription(
            table: table, name: name, columns: fields.map(\.column), keyIndex: keyIndex)
        self.fields = fields
        self.blank = blank
        self.batch = batch
    }
}

/// A column bound to the field of `Row` that holds it.
public struct MirrorField<Row>: Sendable {
    public let column: MirrorColumn
    let value: @Sendable (Row) -> MirrorValue
    let assign: @Sendable (inout Row, MirrorValue) -> Bool

    /// The column `name`, of the type its field's Swift type says unless `type` is given, nullable
    /// when the field is optional.
    public init<Value: MirrorColumnValue>(
        _ name: String, _ field: WritableKeyPath<Row, Value> & Sendable, type: MirrorColumnType? = nil,
        renumbered: Bool = false, reference: MirrorReference? = nil
    ) {
        column = MirrorColumn(
            name: name, type: type ?? Value.columnType, isNullable: Value.isNullable, isRenumbered: renumbered,
            reference: reference)
        value = { $0[keyPath: field].mirrorValue }
        assign = { row, value in
            guard let converted = Value(mirrorValue: value) else { return false }
            row[keyPath: field] = converted
            return true
        }
    }
}

extension MirrorRow {
    /// The row's values, in its description's column order.
    public var mirrorValues: [MirrorValue] {
        Self.mapping.fields.map { $0.value(self) }
    }

    /// The row whose values, in its description's column order, are `values`.
    ///
    /// - Throws: ``MirrorValueMismatch`` for a value its field cannot hold.
    public init(mirrorValues values: [MirrorValue]) throws(MirrorValueMismatch) {
        let mapping = Self.mapping
        var row = mapping.blank
        for (field, value) in zip(mapping.fields, values) {
            guard field.assign(&row, value) else {
                throw MirrorValueMismatch(table: mapping.description.name, column: field.column.name, value: value)
            }
        }
        self = row
    }

    /// The row's key, where a batch ending with it ends.
    var mirrorKey: MirrorKey {
        let description = Self.mapping.description
        switch Self.mapping.fields[description.keyIndex].value(self) {
        case .integer(let value): return .integer(value)
        case .text(let value): return .text(value)
        default: preconditionFailure("\(description.name)'s key \(description.key.name) is neither integer nor text")
        }
    }
}

/// A Swift type a ``MirrorField`` can hold, and the column type it is by default.
public protocol MirrorColumnValue: Sendable {
    static var columnType: MirrorColumnType { get }
    static var isNullable: Bool { get }
    var mirrorValue: MirrorValue { get }
    /// Nil when `mirrorValue` is not a value of this type.
    init?(mirrorValue: MirrorValue)
}

extension MirrorColumnValue {
    public static var isNullable: Bool { false }
}

extension String: MirrorColumnValue {
    public static var columnType: MirrorColumnType { .text }
    public var mirrorValue: MirrorValue { .text(self) }
    public init?(mirrorValue: MirrorValue) {
        guard case .text(let value) = mirrorValue else { return nil }
        self = value
    }
}

extension Int64: MirrorColumnValue {
    public static var columnType: MirrorColumnType { .integer }
    public var mirrorValue: MirrorValue { .integer(self) }
    public init?(mirrorValue: MirrorValue) {
        guard case .integer(let value) = mirrorValue else { return nil }
        self = value
    }
}

extension Int: MirrorColumnValue {
    public static var columnType: MirrorColumnType { .integer }
    public var mirrorValue: MirrorValue { .integer(Int64(self)) }
    public init?(mirrorValue: MirrorValue) {
        guard case .integer(let value) = mirrorValue else { return nil }
        self.init(exactly: value)
    }
}

extension Bool: MirrorColumnValue {
    public static var columnType: MirrorColumnType { .boolean }
    public var mirrorValue: MirrorValue { .boolean(self) }
    public init?(mirrorValue: MirrorValue) {
        guard case .boolean(let value) = mirrorValue else { return nil }
        self = value
    }
}

extension Date: MirrorColumnValue {
    public static var columnType: MirrorColumnType { .date }
    public var mirrorValue: MirrorValue { .date(self) }
    public init?(mirrorValue: MirrorValue) {
        guard case .date(let value) = mirrorValue else { return nil }
        self = value
    }
}

extension Data: MirrorColumnValue {
    public static var columnType: MirrorColumnType { .bytes }
    public var mirrorValue: MirrorValue { .bytes(self) }
    public init?(mirrorValue: MirrorValue) {
        guard case .bytes(let value) = mirrorValue else { return nil }
        self = value
    }
}

extension Optional: MirrorColumnValue where Wrapped: MirrorColumnValue {
    public static var columnType: MirrorColumnType { Wrapped.columnType }
    public static var isNullable: Bool { true }
    public var mirrorValue: MirrorValue { self?.mirrorValue ?? .null }
    public init?(mirrorValue: MirrorValue) {
        if case .null = mirrorValue {
            self = .none
        } else if let value = Wrapped(mirrorValue: mirrorValue) {
            self = .some(value)
        } else {
            return nil
        }
    }
}

extension MirrorTable {
    /// The type of this table's rows.
    var rowType: any MirrorRow.Type {
        switch self {
        case .sources: MirrorSource.self
        case .photos: MirrorPhoto.self
        case .photoDetails: MirrorPhotoDetails.self
        case .memberships: MirrorMembership.self
        case .images: MirrorImage.self
        case .rejectedPhotos: MirrorRejectedPhoto.self
        case .downloadRequests: MirrorDownloadRequest.self
        }
    }

    /// This table as the copy moves it: what each driver makes its statements from.
    public var tableDescription: MirrorTableDescription {
        rowType.tableDescription
    }
}

extension MirrorRow {
    fileprivate static var tableDescription: MirrorTableDescription {
        mapping.description
    }

    fileprivate static func batch(_ values: [[MirrorValue]]) throws(MirrorValueMismatch) -> MirrorRows {
        var rows: [Self] = []
        rows.reserveCapacity(values.count)
        for row in values {
            rows.append(try Self(mirrorValues: row))
        }
        return mapping.batch(rows)
    }
}

extension MirrorRows {
    /// A batch of `table`'s rows, each given as its values in the table's description's order.
    ///
    /// - Throws: ``MirrorValueMismatch`` for a value a row's field cannot hold.
    public init(_ table: MirrorTable, values: [[MirrorValue]]) throws(MirrorValueMismatch) {
        self = try table.rowType.batch(values)
    }

    /// The table the rows are of.
    public var table: MirrorTable {
        rows.table
    }

    /// Each row's values, in its table's description's order.
    public var values: [[MirrorValue]] {
        rows.values
    }

    /// The batch's rows, whichever table's they are.
    var rows: any MirrorBatch {
        switch self {
        case .sources(let rows): rows
        case .photos(let rows): rows
        case .photoDetails(let rows): rows
        case .memberships(let rows): rows
        case .images(let rows): rows
        case .rejectedPhotos(let rows): rows
        case .downloadRequests(let rows): rows
        }
    }
}

/// The rows of a batch, of one table.
protocol MirrorBatch {
    var table: MirrorTable { get }
    var count: Int { get }
    var lastKey: MirrorKey? { get }
    var values: [[MirrorValue]] { get }
}

extension Array: MirrorBatch where Element: MirrorRow {
    var table: MirrorTable { Element.mapping.description.table }
    var lastKey: MirrorKey? { last?.mirrorKey }
    var values: [[MirrorValue]] { map(\.mirrorValues) }
}

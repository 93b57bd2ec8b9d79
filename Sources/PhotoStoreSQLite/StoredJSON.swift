import Foundation
import GRDB
import PhotoStore

/// A JSON document kept as TEXT, byte for byte: SQLite's JSON functions refuse BLOBs.
struct StoredJSON: Codable, DatabaseValueConvertible, Sendable, Equatable {
    var data: Data

    init(_ data: Data) {
        self.data = data
    }

    var databaseValue: DatabaseValue {
        String(decoding: data, as: UTF8.self).databaseValue
    }

    /// As `Data.fromDatabaseValue`, whose `String.data(using:)` went through a generic
    /// `Data.init` that scanned the binary's conformance records at each command's first row.
    static func fromDatabaseValue(_ dbValue: DatabaseValue) -> StoredJSON? {
        switch dbValue.storage {
        case .blob(let data):
            StoredJSON(data)
        case .string(var text):
            StoredJSON(text.withUTF8 { Data(buffer: $0) })
        case .null, .int64, .double:
            nil
        }
    }

    init(from decoder: any Decoder) throws {
        data = try decoder.singleValueContainer().decode(Data.self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(data)
    }
}

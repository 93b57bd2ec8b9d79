import Foundation
import GRDB
import PhotoStore

/// A row of the `photo` table as a GRDB record: its ``CodingKeys`` are the one list of the
/// table's columns, which page commits write and lookups read.
struct PhotoRow: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "photo"

    var id: String
    /// Assigned once, on first insert, in increasing order.
    var sequence: Int64
    var createdAt: StoredDate?
    var updatedAt: StoredDate?
    var width: Int?
    var height: Int?
    var color: String?
    var blurHash: String?
    var description: String?
    var altDescription: String?
    var userUsername: String?
    var userName: String?
    var likes: Int?
    var isSponsored: Bool
    var downloadLocation: String?
    var downloadTrackedAt: StoredDate?
    var isPlus: Bool
    var json: StoredJSON
    var firstSeenAt: StoredDate
    var lastSeenAt: StoredDate

    enum CodingKeys: String, CodingKey, CaseIterable {
        case id, sequence
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case width, height, color
        case blurHash = "blur_hash"
        case description
        case altDescription = "alt_description"
        case userUsername = "user_username"
        case userName = "user_name"
        case likes
        case isSponsored = "is_sponsored"
        case downloadLocation = "download_location"
        case downloadTrackedAt = "download_tracked_at"
        case isPlus = "is_plus"
        case json
        case firstSeenAt = "first_seen_at"
        case lastSeenAt = "last_seen_at"
    }

    /// What a page commit keeps of a photo it already had: the rest is the API's, replaced by
    /// every page that lists the photo.
    static let keptByPageCommits: Set<CodingKeys> = [.sequence, .firstSeenAt, .downloadTrackedAt]

    /// The columns a page commit rewrites for a photo it already had.
    static let replacedByPageCommits = CodingKeys.allCases.filter { !keptByPageCommits.contains($0) }.map(\.rawValue)

    /// `photo` as a page lists it, first seen (and last seen) at `now`.
    init(_ photo: PhotoRecord, sequence: Int64, seenAt now: Date) {
        id = photo.id
        self.sequence = sequence
        createdAt = photo.createdAt?.stored
        updatedAt = photo.updatedAt?.stored
        width = photo.width
        height = photo.height
        color = photo.color
        blurHash = photo.blurHash
        description = photo.description
        altDescription = photo.altDescription
        userUsername = photo.userUsername
        userName = photo.userName
        likes = photo.likes
        isSponsored = photo.isSponsored
        downloadLocation = photo.downloadLocation
        downloadTrackedAt = nil
        isPlus = photo.isPlus
        json = StoredJSON(photo.json)
        firstSeenAt = now.stored
        lastSeenAt = now.stored
    }

    /// The row's columns, read one by one: through `Decodable`, GRDB's default, a lookup went
    /// through a keyed decoding container whose generic decodes each asked the runtime whether
    /// a type conforms to a protocol, and the first such question for a type scans every
    /// conformance record of the binary (Benchmarks/HISTORY.md, "Where the rest of the start
    /// goes"): five scans of `photosync query`'s start.
    init(row: Row) throws {
        id = try row.decode(forColumn: CodingKeys.id.rawValue)
        sequence = try row.decode(forColumn: CodingKeys.sequence.rawValue)
        createdAt = try row.decode(forColumn: CodingKeys.createdAt.rawValue)
        updatedAt = try row.decode(forColumn: CodingKeys.updatedAt.rawValue)
        width = try row.decode(forColumn: CodingKeys.width.rawValue)
        height = try row.decode(forColumn: CodingKeys.height.rawValue)
        color = try row.decode(forColumn: CodingKeys.color.rawValue)
        blurHash = try row.decode(forColumn: CodingKeys.blurHash.rawValue)
        self.description = try row.decode(forColumn: CodingKeys.description.rawValue)
        altDescription = try row.decode(forColumn: CodingKeys.altDescription.rawValue)
        userUsername = try row.decode(forColumn: CodingKeys.userUsername.rawValue)
        userName = try row.decode(forColumn: CodingKeys.userName.rawValue)
        likes = try row.decode(forColumn: CodingKeys.likes.rawValue)
        isSponsored = try row.decode(forColumn: CodingKeys.isSponsored.rawValue)
        downloadLocation = try row.decode(forColumn: CodingKeys.downloadLocation.rawValue)
        downloadTrackedAt = try row.decode(forColumn: CodingKeys.downloadTrackedAt.rawValue)
        isPlus = try row.decode(forColumn: CodingKeys.isPlus.rawValue)
        json = try row.decode(forColumn: CodingKeys.json.rawValue)
        firstSeenAt = try row.decode(forColumn: CodingKeys.firstSeenAt.rawValue)
        lastSeenAt = try row.decode(forColumn: CodingKeys.lastSeenAt.rawValue)
    }

    /// The row's columns, written one by one: through `Encodable`, GRDB's default, each photo of
    /// a page commit went through a keyed encoding container.
    func encode(to container: inout PersistenceContainer) {
        container[CodingKeys.id.rawValue] = id
        container[CodingKeys.sequence.rawValue] = sequence
        container[CodingKeys.createdAt.rawValue] = createdAt
        container[CodingKeys.updatedAt.rawValue] = updatedAt
        container[CodingKeys.width.rawValue] = width
        container[CodingKeys.height.rawValue] = height
        container[CodingKeys.color.rawValue] = color
        container[CodingKeys.blurHash.rawValue] = blurHash
        container[CodingKeys.description.rawValue] = description
        container[CodingKeys.altDescription.rawValue] = altDescription
        container[CodingKeys.userUsername.rawValue] = userUsername
        container[CodingKeys.userName.rawValue] = userName
        container[CodingKeys.likes.rawValue] = likes
        container[CodingKeys.isSponsored.rawValue] = isSponsored
        container[CodingKeys.downloadLocation.rawValue] = downloadLocation
        container[CodingKeys.downloadTrackedAt.rawValue] = downloadTrackedAt
        container[CodingKeys.isPlus.rawValue] = isPlus
        container[CodingKeys.json.rawValue] = json
        container[CodingKeys.firstSeenAt.rawValue] = firstSeenAt
        container[CodingKeys.lastSeenAt.rawValue] = lastSeenAt
    }
}

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

extension StoredDate: Codable {
    package init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(Date.self))
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(date)
    }
}

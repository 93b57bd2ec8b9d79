import Foundation
import GRDB

/// How many images of one variant are in each state.
public struct ImageCounts: Sendable, Equatable {
    public var stored: Int64
    public var pending: Int64
    public var failed: Int64

    public init(stored: Int64, pending: Int64, failed: Int64) {
        self.stored = stored
        self.pending = pending
        self.failed = failed
    }
}

extension PhotoStore {
    /// `IN` over a JSON array bound as one argument, so a list of variants needs no SQL built
    /// from input.
    static let variantList = "(SELECT value FROM json_each(?))"

    static func json(_ variants: [String]) -> String {
        String(decoding: (try? JSONEncoder().encode(variants)) ?? Data("[]".utf8), as: UTF8.self)
    }

    /// The images of `variant` by state, from the queue's columns only.
    public func imageCounts(variant: String) throws -> ImageCounts {
        try imageCounts(variants: [variant])
    }

    /// The images of all of `variants` together, by state.
    public func imageCounts(variants: [String]) throws -> ImageCounts {
        try read("counting \(variants.joined(separator: ", ")) images") { db in
            var counts: [String: Int64] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT status, COUNT(*) AS count FROM image WHERE variant IN \(Self.variantList) GROUP BY status",
                arguments: [Self.json(variants)])
            {
                counts[try row.decode(forColumn: "status")] = try row.decode(forColumn: "count")
            }
            return ImageCounts(stored: counts["stored", default: 0], pending: counts["pending", default: 0], failed: counts["failed", default: 0])
        }
    }
}

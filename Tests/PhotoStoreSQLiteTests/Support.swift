import Foundation
import TestSupport

@testable import PhotoStore
@testable import PhotoStoreSQLite

/// Runs `body` with a new, empty directory that is removed afterwards.
func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("PhotoStoreSQLiteTests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}

/// Runs `body` with a store freshly created in a temporary directory.
func withStore<T>(_ body: (PhotoStore, URL) async throws -> T) async throws -> T {
    try await withTemporaryDirectory { directory in
        let store = try PhotoStore(path: directory.appendingPathComponent("photos.sqlite").path)
        return try await body(store, directory)
    }
}

extension PhotoStore {
    /// The rows `body` inserted, updated or deleted, counting those its triggers changed.
    func totalChanges(_ body: () async throws -> Void) async throws -> Int {
        let before = try await pool.write { $0.totalChangesCount }
        try await body()
        return try await pool.write { $0.totalChangesCount } - before
    }

    /// The SQLite implementations behind the parts, for tests of what only they have.
    var sqliteCatalog: SQLitePhotoCatalog { catalog as! SQLitePhotoCatalog }
    var sqliteStorage: SQLiteStorage { storage as! SQLiteStorage }
}

func posixPermissions(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
}

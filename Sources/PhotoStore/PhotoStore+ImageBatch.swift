import Foundation
import GRDB

/// Group commit: many downloads settled in one transaction, which is what makes storing
/// thousands of small images fast. Each image's bytes still commit with the status that marks it
/// stored - in the same transaction - so a crash loses only the batch being written, never
/// leaves bytes without their status nor a status without its bytes.
extension PhotoStore {
    /// Stores every image of `images` (bytes and `stored` status) and records every failed
    /// attempt of `failures`, all in one transaction: either the whole batch commits or nothing does.
    ///
    /// - Returns: for each of `images`, in order, true when stored; false when it was already stored.
    /// - Throws: `StoreError.unknownImageJob`, `.imageTooLarge`, `.imageSizeMismatch`,
    ///   `.cannotReadImageFile`, `.databaseFailure`; nothing of the batch is stored then.
    @discardableResult
    public func storeImages(_ images: [ImageToStore], failures: [ImageAttemptFailure] = []) throws -> [Bool] {
        for image in images {
            try Self.checkBlobSize(image)
        }
        guard !images.isEmpty || !failures.isEmpty else { return [] }
        return try write("storing a batch of \(images.count) images") { db in
            let stored = try images.map { try Self.store($0, path: path, in: db) }
            for failure in failures {
                try Self.record(failure, path: path, in: db)
            }
            return stored
        }
    }
}

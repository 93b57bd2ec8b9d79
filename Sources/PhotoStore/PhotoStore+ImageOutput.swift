import Foundation
import GRDB

extension PhotoStore {
    /// Streams the stored image chosen as by `writeImage(photoID:variant:to:)` into an open
    /// `output` (standard output, say), 1 MiB at a time; `name` names it in errors.
    ///
    /// - Returns: the number of bytes written; nil, writing nothing, when no such image is stored.
    /// - Throws: `StoreError.cannotWriteImageFile` (some bytes may have been written),
    ///   `.databaseFailure`.
    public func writeImage(photoID: String, variant: String?, to output: FileHandle, named name: String) throws -> Int64? {
        try read("reading the image of photo \(photoID)") { db in
            guard let image = try Self.storedImageRow(photoID: photoID, variant: variant, in: db) else {
                return nil
            }
            let imageID: Int64 = try image.decode(forColumn: "id")
            return try ImageBlob.read(rowID: imageID, to: output, destination: URL(fileURLWithPath: name), in: db)
        }
    }
}

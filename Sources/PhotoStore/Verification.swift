import Foundation

/// What `photosync verify` found.
public struct VerificationReport: Sendable, Equatable {
    /// `PRAGMA integrity_check`'s findings; empty when SQLite answered "ok".
    public var integrityErrors: [String]
    /// Stored images whose bytes were re-hashed.
    public var imagesChecked: Int
    public var bytesChecked: Int64
    /// Every image that is not as recorded, and every blob without a stored image.
    public var problems: [VerificationProblem]

    /// True when SQLite found the file sound and every stored image matched its record.
    public var isClean: Bool { integrityErrors.isEmpty && problems.isEmpty }

    public init(integrityErrors: [String], imagesChecked: Int, bytesChecked: Int64, problems: [VerificationProblem]) {
        self.integrityErrors = integrityErrors
        self.imagesChecked = imagesChecked
        self.bytesChecked = bytesChecked
        self.problems = problems
    }
}

/// One image that is not as its record says.
public struct VerificationProblem: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// The bytes do not hash to the recorded SHA-256.
        case sha256Mismatch = "sha256_mismatch"
        /// The bytes are not as many as the recorded byte count.
        case sizeMismatch = "size_mismatch"
        /// The image is marked stored but has no bytes.
        case missingBytes = "missing_bytes"
        /// Bytes are kept for an image that is not marked stored, or that does not exist.
        case orphanedBytes = "orphaned_bytes"
    }

    public var kind: Kind
    /// The photo concerned; nil for orphaned bytes whose image row is gone.
    public var photoID: String?
    public var variant: ImageVariant?
    /// What was expected and what was found, for a person to read.
    public var detail: String

    public init(kind: Kind, photoID: String?, variant: ImageVariant?, detail: String) {
        self.kind = kind
        self.photoID = photoID
        self.variant = variant
        self.detail = detail
    }
}

/// How far a verification has come, for a progress line.
public struct VerificationProgress: Sendable, Equatable {
    public var imagesChecked: Int
    public var imagesTotal: Int
    public var bytesChecked: Int64

    public init(imagesChecked: Int, imagesTotal: Int, bytesChecked: Int64) {
        self.imagesChecked = imagesChecked
        self.imagesTotal = imagesTotal
        self.bytesChecked = bytesChecked
    }
}

/// `photosync verify`'s walk, the same on both stores: every stored image in the mirror's
/// order (its photo's sequence, then its variant), re-hashed one at a time by the driver, each
/// judged against its record here; then the bytes kept for no stored image. The driver supplies
/// the database's own check (SQLite's `PRAGMA integrity_check`), the list, a re-hash and the
/// orphans.
package enum VerificationWalk {
    /// A stored image as its record says, in the walk's order.
    package struct Recorded: Sendable {
        package let id: Int64
        package let photoID: String
        /// Nil for a name that is not a variant's (a database another program wrote).
        package let variant: ImageVariant?
        package let byteCount: Int64
        package let sha256: String

        package init(id: Int64, photoID: String, variant: ImageVariant?, byteCount: Int64, sha256: String) {
            self.id = id
            self.photoID = photoID
            self.variant = variant
            self.byteCount = byteCount
            self.sha256 = sha256
        }
    }

    /// What the bytes of an image are: their size and the hex SHA-256 they hash to.
    package struct Bytes: Sendable {
        package let size: Int64
        package let sha256: String

        package init(size: Int64, sha256: String) {
            self.size = size
            self.sha256 = sha256
        }
    }

    /// Re-hashes each of `images` by `rehash` (nil: no bytes are kept for it), reports progress
    /// after each, and adds `orphans`, the bytes kept for no stored image, at the end.
    package static func run(
        integrityErrors: [String], images: [Recorded], rehash: (Recorded) async throws(StoreError) -> Bytes?,
        orphans: () async throws(StoreError) -> [VerificationProblem], progress: (VerificationProgress) -> Void
    ) async throws(StoreError) -> VerificationReport {
        var report = VerificationReport(
            integrityErrors: integrityErrors, imagesChecked: 0, bytesChecked: 0, problems: [])
        for (walked, image) in images.enumerated() {
            let bytes = try await rehash(image)
            if let problem = problem(of: image, bytes: bytes) { report.problems.append(problem) }
            // An image with no bytes was looked at, not re-hashed.
            if let bytes {
                report.imagesChecked += 1
                report.bytesChecked += bytes.size
            }
            progress(
                VerificationProgress(
                    imagesChecked: walked + 1, imagesTotal: images.count, bytesChecked: report.bytesChecked))
        }
        report.problems += try await orphans()
        return report
    }

    /// What is wrong with `image`, whose bytes are `bytes` (nil when none are kept); nil when
    /// they are as recorded.
    package static func problem(of image: Recorded, bytes: Bytes?) -> VerificationProblem? {
        let (photoID, variant) = (image.photoID, image.variant)
        guard let bytes, bytes.size > 0 || image.byteCount == 0 else {
            return VerificationProblem(
                kind: .missingBytes, photoID: photoID, variant: variant, detail: "marked stored, but no bytes are kept")
        }
        if bytes.size != image.byteCount {
            return VerificationProblem(
                kind: .sizeMismatch, photoID: photoID, variant: variant,
                detail: "\(bytes.size) bytes stored, \(image.byteCount) recorded")
        }
        if bytes.sha256 != image.sha256 {
            return VerificationProblem(
                kind: .sha256Mismatch, photoID: photoID, variant: variant,
                detail: "bytes hash to \(bytes.sha256), \(image.sha256) recorded")
        }
        return nil
    }

    /// The bytes kept for image `imageID`, which is not stored: of `status`, or gone when nil.
    package static func orphan(
        imageID: Int64, photoID: String?, variant: ImageVariant?, status: String?
    ) -> VerificationProblem {
        VerificationProblem(
            kind: .orphanedBytes, photoID: photoID, variant: variant,
            detail: status.map { "bytes kept for an image that is \($0), not stored" }
                ?? "bytes kept for image \(imageID), which does not exist")
    }
}

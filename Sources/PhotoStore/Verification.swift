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

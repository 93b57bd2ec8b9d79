import Basics
import Crypto
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where downloaded bodies land while they are checked: in memory up to ``memoryLimit`` bytes,
/// past that in a file of their own, created 0600 in ``directory`` (itself 0700).
///
/// Each body's SHA-256 and byte count are computed as its chunks arrive, so the bytes are never
/// read back to be hashed. A body larger than ``maxBytes`` is refused, by its `Content-Length`
/// before any byte is read, or as soon as it runs past the limit. A body shorter or longer than
/// its `Content-Length` is refused. Whenever a body is refused, fails mid-way or is cancelled,
/// its file is removed before the error is thrown; ``prepare()`` removes what a killed process
/// left behind.
public struct BodySpool: Sendable {
    public var directory: URL
    public var memoryLimit: Int
    public var maxBytes: Int64

    public init(directory: URL, memoryLimit: Int = 4 << 20, maxBytes: Int64 = 256 << 20) {
        self.directory = directory
        self.memoryLimit = max(0, memoryLimit)
        self.maxBytes = max(1, maxBytes)
    }

    /// Creates ``directory`` (0700) if needed, makes sure it is private, and removes every file
    /// in it: spool files live no longer than the download that made them, so any found here were
    /// left by a process that was killed. Call it once at start, before any download.
    /// - Returns: how many leftover files were removed.
    /// - Throws: ``SpoolError`` when the directory cannot be created, secured or emptied.
    @discardableResult
    public func prepare() throws(SpoolError) -> Int {
        let path = directory.path
        if mkdir(path, 0o700) != 0, errno != EEXIST {
            throw .cannotCreate(path: path, reason: Self.lastError())
        }
        var info = stat()
        guard lstat(path, &info) == 0 else { throw .cannotCreate(path: path, reason: Self.lastError()) }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw .cannotCreate(path: path, reason: "it exists and is not a directory")
        }
        if info.st_mode & 0o077 != 0, chmod(path, 0o700) != 0 {
            throw .cannotCreate(path: path, reason: Self.lastError())
        }
        let leftovers: [String]
        do {
            leftovers = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            throw .cannotCreate(path: path, reason: error.localizedDescription)
        }
        for name in leftovers {
            unlink(directory.appendingPathComponent(name).path)
        }
        return leftovers.count
    }

    /// Reads `body` to its end into memory or a spool file, hashing it as it arrives.
    ///
    /// - Parameters:
    ///   - declaredLength: the answer's `Content-Length`, if it had one.
    ///   - url: the redacted URL, for error messages.
    /// - Throws: ``NetworkError/bodyTooLarge(url:limit:declared:)``,
    ///   ``NetworkError/lengthMismatch(url:declared:received:)``, ``NetworkError/spool(_:)`` when
    ///   the file cannot be written (a full disk), and what the body's iteration throws as
    ///   ``NetworkError/transport(_:url:)`` or ``NetworkError/cancelled``. No file is left behind
    ///   after any of them.
    public func receive(
        _ body: ResponseBody, declaredLength: Int64?, url: @autoclosure () -> String
    ) async throws(NetworkError) -> SpooledBody {
        if let declaredLength, declaredLength > maxBytes {
            throw .bodyTooLarge(url: url(), limit: maxBytes, declared: declaredLength)
        }
        var sink = Sink(spool: self, expected: declaredLength)
        do {
            for try await chunk in body {
                guard sink.byteCount + Int64(chunk.count) <= maxBytes else {
                    throw NetworkError.bodyTooLarge(url: url(), limit: maxBytes, declared: declaredLength)
                }
                try sink.append(chunk)
            }
            if let declaredLength, declaredLength != sink.byteCount {
                throw NetworkError.lengthMismatch(url: url(), declared: declaredLength, received: sink.byteCount)
            }
            return try sink.finish()
        } catch {
            sink.abandon()
            throw NetworkError.wrapping(error, url: url())
        }
    }

    /// One body on its way in.
    private struct Sink {
        let spool: BodySpool
        var hasher = SHA256()
        var byteCount: Int64 = 0
        var memory = Data()
        var prefix = Data()
        var suffix = Data()
        var file: (url: URL, descriptor: Int32)?

        /// Whether the body goes to a file from its first byte: its `Content-Length` says it will
        /// not fit in memory, so it is never buffered there (at concurrency 4, four bodies
        /// buffered up to the limit before moving to files held 16-32 MiB at once).
        let spoolsAtOnce: Bool

        init(spool: BodySpool, expected: Int64?) {
            self.spool = spool
            spoolsAtOnce = expected.map { $0 > Int64(spool.memoryLimit) } ?? false
            if let expected, !spoolsAtOnce {
                memory.reserveCapacity(Int(expected))
            }
        }

        mutating func append(_ chunk: Data) throws(SpoolError) {
            hasher.update(data: chunk)
            byteCount += Int64(chunk.count)
            if prefix.count < SpooledBody.prefixLength {
                prefix.append(chunk.prefix(SpooledBody.prefixLength - prefix.count))
            }
            keepSuffix(of: chunk)
            if file == nil, spoolsAtOnce || byteCount > Int64(spool.memoryLimit) {
                try openFile()
                try write(memory)
                memory = Data()
            }
            if file != nil {
                try write(chunk)
            } else {
                memory.append(chunk)
            }
        }

        /// Keeps the last ``SpooledBody/suffixLength`` bytes seen, copied (a slice would hold
        /// the whole chunk), with one small allocation a chunk.
        private mutating func keepSuffix(of chunk: Data) {
            let length = SpooledBody.suffixLength
            if chunk.count >= length {
                suffix = chunk.suffix(length).withUnsafeBytes { Data($0) }
            } else {
                suffix.append(chunk)
                if suffix.count > length { suffix = suffix.suffix(length).withUnsafeBytes { Data($0) } }
            }
        }

        mutating func finish() throws(SpoolError) -> SpooledBody {
            let digest = Hex.string(hasher.finalize())
            guard let file else {
                return SpooledBody(
                    storage: .memory(memory), byteCount: byteCount, sha256: digest, prefix: prefix, suffix: suffix)
            }
            self.file = nil
            if close(file.descriptor) != 0 {
                let reason = BodySpool.lastError()
                unlink(file.url.path)
                throw .cannotWrite(path: file.url.path, reason: reason)
            }
            return SpooledBody(
                storage: .file(file.url), byteCount: byteCount, sha256: digest, prefix: prefix, suffix: suffix)
        }

        mutating func abandon() {
            guard let file else { return }
            close(file.descriptor)
            unlink(file.url.path)
            self.file = nil
        }

        private mutating func openFile() throws(SpoolError) {
            let url = spool.directory.appendingPathComponent("body-\(UUID().uuidString)")
            let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard descriptor >= 0 else { throw .cannotWrite(path: url.path, reason: BodySpool.lastError()) }
            file = (url, descriptor)
        }

        private func write(_ data: Data) throws(SpoolError) {
            guard let file, !data.isEmpty else { return }
            let failure = data.withUnsafeBytes { writeFully(file.descriptor, $0) }
            if let failure { throw .cannotWrite(path: file.url.path, reason: failure) }
        }
    }

    fileprivate static func lastError() -> String {
        String(cString: strerror(errno))
    }
}

/// Writes all of `buffer`, retrying interrupted and short writes; returns why it failed, or nil.
private func writeFully(_ descriptor: Int32, _ buffer: UnsafeRawBufferPointer) -> String? {
    var offset = 0
    while offset < buffer.count {
        let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
        if written < 0 {
            if errno == EINTR { continue }
            return String(cString: strerror(errno))
        }
        offset += written
    }
    return nil
}

/// A body that arrived whole, with its SHA-256. When it is in a file, the caller owns the file and
/// must ``remove()`` it once done.
public struct SpooledBody: Sendable {
    public enum Storage: Sendable, Equatable {
        case memory(Data)
        case file(URL)
    }

    /// How many of the first bytes ``prefix`` keeps: enough to tell image formats apart.
    public static let prefixLength = 32
    /// How many of the last bytes ``suffix`` keeps: enough to see a format's end marker.
    public static let suffixLength = 32

    public var storage: Storage
    public var byteCount: Int64
    /// Lowercase hex.
    public var sha256: String
    /// The first bytes of the body (at most ``prefixLength``).
    public var prefix: Data
    /// The last bytes of the body (at most ``suffixLength``).
    public var suffix: Data

    public init(storage: Storage, byteCount: Int64, sha256: String, prefix: Data, suffix: Data = Data()) {
        self.storage = storage
        self.byteCount = byteCount
        self.sha256 = sha256
        self.prefix = prefix
        self.suffix = suffix
    }

    /// Deletes the spool file, if the body is in one.
    public func remove() {
        if case .file(let url) = storage { unlink(url.path) }
    }
}

/// The spool directory or one of its files could not be created or written: a local problem,
/// such as a full disk or a read-only directory, that retrying the request cannot fix.
public enum SpoolError: Error, LocalizedError, Sendable, Equatable {
    case cannotCreate(path: String, reason: String)
    case cannotWrite(path: String, reason: String)

    public var errorDescription: String? {
        switch self {
        case .cannotCreate(let path, let reason): "cannot prepare the download directory \(path): \(reason)"
        case .cannotWrite(let path, let reason): "cannot write the download file \(path): \(reason)"
        }
    }
}

import Foundation

/// Reads configuration and credential files, with failures a user can act on.
///
/// Unlike `String(contentsOfFile:)`, failures give the system's reason (`strerror`: "Permission
/// denied"), which is what the user needs, and reading at most ``sizeLimit`` + 1 bytes keeps
/// `--access-key-file /dev/zero` from eating memory.
enum SmallFile {
    static let sizeLimit = 1 << 20

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// The text of the file at `path`, which must be UTF-8 and at most ``sizeLimit`` bytes.
    ///
    /// - Throws: ``ConfigurationError`` with `source`: `.missingFile` ("`what` does not exist") or
    ///   `.unreadableFile` ("`what` cannot be read: " and the reason).
    static func text(of path: String, what: String, source: String) throws(ConfigurationError) -> String {
        let unreadable = { (reason: String) in
            ConfigurationError(.unreadableFile, source: source, message: "\(what) cannot be read: \(reason)")
        }
        // open(2) and read(2), not FileHandle and a URL: every command with a configuration file
        // reads one, and the URL's path went through generic code whose dynamic casts scan the
        // binary's conformance records (Benchmarks/HISTORY.md, "Where the rest of the start goes").
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let error = errno
            guard error != ENOENT else {
                throw ConfigurationError(.missingFile, source: source, message: "\(what) does not exist")
            }
            throw unreadable(String(cString: strerror(error)))
        }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count <= sizeLimit {
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0 {
                let error = errno
                if error == EINTR { continue }
                throw unreadable(String(cString: strerror(error)))
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[..<count])
        }
        if bytes.count > sizeLimit { throw unreadable("larger than \(sizeLimit / 1024) KiB") }
        // A byte order mark is skipped, as Foundation's `String(data:encoding:)` skipped it.
        let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        guard let text = String(validating: bytes[start...], as: UTF8.self) else {
            throw unreadable("not UTF-8 text")
        }
        return text
    }
}

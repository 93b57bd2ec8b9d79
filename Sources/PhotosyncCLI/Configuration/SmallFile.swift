import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads configuration and credential files, with failures a user can act on.
///
/// POSIX calls rather than `Data(contentsOf:)`: the reason (`strerror`) is what the user needs
/// ("Permission denied"), and a size cap keeps `--access-key-file /dev/zero` from eating memory.
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
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            guard errno != ENOENT else {
                throw ConfigurationError(.missingFile, source: source, message: "\(what) does not exist")
            }
            throw unreadable(String(cString: strerror(errno)))
        }
        defer { close(fd) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw unreadable(String(cString: strerror(errno)))
            }
            data.append(contentsOf: buffer[0..<count])
            if data.count > sizeLimit { throw unreadable("larger than \(sizeLimit / 1024) KiB") }
        }
        guard let text = String(data: data, encoding: .utf8) else { throw unreadable("not UTF-8 text") }
        return text
    }
}

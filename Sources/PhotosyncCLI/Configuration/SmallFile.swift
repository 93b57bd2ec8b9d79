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
        let data: Data
        do {
            let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? file.close() }
            data = try file.read(upToCount: sizeLimit + 1) ?? Data()
        } catch {
            // Foundation's own message is generic; the errno it wraps names the cause.
            let errno = Int32(((error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError)?.code ?? Int(EIO))
            guard errno != ENOENT else {
                throw ConfigurationError(.missingFile, source: source, message: "\(what) does not exist")
            }
            throw unreadable(String(cString: strerror(errno)))
        }
        if data.count > sizeLimit { throw unreadable("larger than \(sizeLimit / 1024) KiB") }
        guard let text = String(data: data, encoding: .utf8) else { throw unreadable("not UTF-8 text") }
        return text
    }
}

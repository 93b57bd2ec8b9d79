import Foundation

/// A fresh directory under /tmp, removed when the value is released.
final class TemporaryDirectory {
    let path: String

    init() {
        path = FileManager.default.temporaryDirectory.path + "/photosync-cli-tests-" + UUID().uuidString
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Writes `contents` to `name` in the directory; returns the file's path.
    @discardableResult
    func write(_ name: String, _ contents: String) -> String {
        let file = path + "/" + name
        try! contents.write(toFile: file, atomically: false, encoding: .utf8)
        return file
    }

    /// A path in the directory where nothing exists.
    func missing(_ name: String = "missing.yaml") -> String {
        path + "/" + name
    }
}

import Foundation
import Testing

/// `systemd/photosync-stage-files`, which the unit runs as root before the daemon starts and
/// before each reload: it hands the service its key, configuration file and environment file.
@Suite struct StageFilesTests {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "systemd/photosync-stage-files")

    /// `/etc/photosync` and `/run/photosync`, under a fresh temporary directory.
    struct Directories {
        let from: String
        let to: String

        init() throws {
            let root = FileManager.default.temporaryDirectory.path + "/photosync-stage-" + UUID().uuidString
            from = root + "/etc"
            to = root + "/run"
            try FileManager.default.createDirectory(atPath: from, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: to, withIntermediateDirectories: true)
        }

        func write(_ name: String, _ text: String) throws {
            try text.write(toFile: from + "/" + name, atomically: true, encoding: .utf8)
        }

        func staged(_ name: String) -> String? { try? String(contentsOfFile: to + "/" + name, encoding: .utf8) }

        func stage() async throws -> PhotosyncProcess.Result {
            try await PhotosyncProcess.run([from, to], program: StageFilesTests.script)
        }

        func remove() {
            try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: from).deletingLastPathComponent().path)
        }
    }

    @Test func itCopiesEachFileReadableByTheServiceAloneAndAnEmptyOneForAMissingFile() async throws {
        let directories = try Directories()
        defer { directories.remove() }
        try directories.write("access-key", "KEY\n")
        try directories.write("photosync.yaml", "per_page: 10\n")

        let result = try await directories.stage()

        #expect(result.status == 0, "\(result.stderr)")
        #expect(directories.staged("access-key") == "KEY\n")
        #expect(directories.staged("photosync.yaml") == "per_page: 10\n")
        #expect(directories.staged("environment") == "", "no environment file: an empty one")
        let owner = try FileManager.default.attributesOfItem(atPath: directories.to)[.ownerAccountID] as? NSNumber
        for name in ["access-key", "photosync.yaml", "environment"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: directories.to + "/" + name)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o400, "\(name)")
            #expect(attributes[.ownerAccountID] as? NSNumber == owner, "\(name): owned as the directory is")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directories.to).count == 3, "no leftovers")
    }

    @Test func withoutAKeyAStartStagesNoneAndAReloadFailsKeepingTheOldOne() async throws {
        let directories = try Directories()
        defer { directories.remove() }

        // A start: no key staged, photosync then says so and exits 78.
        let start = try await directories.stage()
        #expect(start.status == 0, "\(start.stderr)")
        #expect(directories.staged("access-key") == nil)
        #expect(directories.staged("photosync.yaml") == "")
        #expect(start.stderr.contains("no access key in \(directories.from)/access-key"), "\(start.stderr)")

        // A reload after the key was removed: it fails and the running key stays.
        try directories.write("access-key", "OLD\n")
        #expect(try await directories.stage().status == 0)
        try FileManager.default.removeItem(atPath: directories.from + "/access-key")
        try directories.write("photosync.yaml", "per_page: 20\n")
        let reload = try await directories.stage()
        #expect(reload.status == 1)
        #expect(reload.stderr.split(separator: "\n").count == 1, "\(reload.stderr)")
        #expect(directories.staged("access-key") == "OLD\n")
        #expect(directories.staged("photosync.yaml") == "", "a failed reload changes nothing")
    }
}

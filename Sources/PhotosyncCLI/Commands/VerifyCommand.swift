import ArgumentParser
import Foundation
import PhotoStore
import UnsplashAPI

/// `photosync verify`: SQLite's integrity check, and every stored image re-hashed.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check the database: SQLite's integrity, and every stored image against its SHA-256.",
        discussion: """
            Re-hashes every stored image, 1 MiB at a time, and checks that every stored image has \
            its bytes and that no bytes are kept for an image that is not stored. Exits 0 when all \
            is well and 65 when anything is wrong, naming each bad photo. Reads the database while \
            `photosync run` writes it.
            """)

    @OptionGroup var database: DatabaseOptions

    @Flag(help: "Print the report as JSON.")
    var json = false

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        try await reportingErrors {
            let store = try await database.openStore(environment: environment)
            let progress = VerifyProgressLine(
                interactive: isatty(STDERR_FILENO) == 1 && environment["JOURNAL_STREAM"] == nil)
            let report = try await store.archive.verify(progress: progress.show)
            progress.finish()
            print(json ? try Self.json(report, path: store.path) : Self.text(report))
            if !report.isClean {
                let count = report.problems.count + report.integrityErrors.count
                throw CommandFailure(
                    code: .dataError,
                    message: "verify found \(count) problem\(count == 1 ? "" : "s") in \(store.path)")
            }
        }
    }

    static func json(_ report: VerificationReport, path: String) throws -> String {
        let object: JSONValue = .object([
            "database": .string(path),
            "ok": .bool(report.isClean),
            "integrity": report.integrityErrors.isEmpty
                ? .string("ok") : .array(report.integrityErrors.map(JSONValue.string)),
            "images_checked": .int(Int64(report.imagesChecked)),
            "bytes_checked": .int(report.bytesChecked),
            "problems": .array(
                report.problems.map { problem in
                    .object([
                        "kind": .string(problem.kind.rawValue),
                        "photo": problem.photoID.map(JSONValue.string) ?? .null,
                        "variant": problem.variant.map { .string($0.rawValue) } ?? .null,
                        "detail": .string(problem.detail),
                    ])
                }),
        ])
        return try JSONOutput.string(object)
    }

    static func text(_ report: VerificationReport) -> String {
        let size = ByteCount.text(report.bytesChecked)
        var lines = [
            "integrity       " + (report.integrityErrors.isEmpty ? "ok" : "\(report.integrityErrors.count) errors")
        ]
        lines += report.integrityErrors.prefix(20).map { "  \($0)" }
        lines.append("images checked  \(report.imagesChecked) (\(size))")
        lines.append("problems        \(report.problems.count)")
        for problem in report.problems {
            let image = (problem.photoID ?? "-") + (problem.variant.map { " (\($0))" } ?? "")
            lines.append("  \(problem.kind.rawValue) \(image): \(problem.detail)")
        }
        return lines.joined(separator: "\n")
    }
}

/// A live "verifying" line on stderr in a terminal, so stdout keeps only the report.
private final class VerifyProgressLine: Sendable {
    private let interactive: Bool

    init(interactive: Bool) {
        self.interactive = interactive
    }

    func show(_ progress: VerificationProgress) {
        // Every 64th image is often enough for a person and cheap for 100,000 images.
        guard interactive, progress.imagesChecked % 64 == 0 || progress.imagesChecked == progress.imagesTotal else {
            return
        }
        let size = ByteCount.text(progress.bytesChecked)
        let line = "\r\u{1B}[2Kverifying: \(progress.imagesChecked)/\(progress.imagesTotal) images, \(size)"
        FileHandle.standardError.write(Data(line.utf8))
    }

    func finish() {
        if interactive {
            FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
        }
    }
}

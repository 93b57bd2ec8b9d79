import ArgumentParser
import Foundation
import Logging
import PhotoStore
import PhotoStoreSQLite

/// `photosync copy --from A --to B`: a whole mirror moved between an SQLite file and PostgreSQL.
struct CopyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "copy",
        abstract: "Copy a whole mirror from one database into another: SQLite to PostgreSQL, and back.",
        discussion: """
            Copies photos with their original JSON, images, sources with their cursors, memberships, \
            rejected photos, full objects and download tracking marks, asking Unsplash for nothing: \
            `photosync run` on the target goes on where the source stood. Each side is a file path \
            or a postgres:// URL. The target must be empty (a new file, or a database without \
            photosync's tables) or a copy from the same source that stopped: run the same command \
            again after a kill or a failure, and it goes on from the last batch it wrote. The copy \
            holds both databases as `run` does (exit 73 while a `run` writes either). Exits 73 when \
            the target holds a mirror of its own.
            """)

    @Option(
        name: .customLong("from"),
        help: ArgumentHelp("The mirror to copy: a file, or a postgres:// URL.", valueName: "path|url"))
    var source: String

    @Option(name: .customLong("to"), help: ArgumentHelp("The database to copy it into.", valueName: "path|url"))
    var target: String

    func validate() throws {
        let from = try Self.location(source, flag: "--from")
        let to = try Self.location(target, flag: "--to")
        if from == to { throw ValidationError("--from and --to name the same database") }
    }

    private static func location(_ text: String, flag: String) throws -> DatabaseLocation {
        do {
            return try DatabaseLocation(parsing: text, environment: ProcessInfo.processInfo.environment)
        } catch {
            throw ValidationError("\(flag) \(error.text)")
        }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        try await reportingErrors {
            var logger = Logger(label: "photosync")
            logger.logLevel = .error
            let from = try Self.location(source, flag: "--from")
            let to = try Self.location(target, flag: "--to")
            if case .file(let path) = from, !FileManager.default.fileExists(atPath: path) {
                throw StoreError.missing(path: path)
            }
            if case .file(let path) = to { try PhotoStore.checkDatabasePath(path) }
            let (sourceStore, sourceWriter, _) = try await from.openForWriting(environment: environment, logger: logger)
            let (targetStore, targetWriter, _) = try await to.openForWriting(environment: environment, logger: logger)
            let interactive = isatty(STDERR_FILENO) == 1 && environment["JOURNAL_STREAM"] == nil
            let line = ProgressLine(interactive: interactive)
            let start = ContinuousClock.now
            let outcome: Result<MirrorCopy.Summary, any Error>
            do {
                outcome = .success(
                    try await Self.copy(from: sourceStore, to: targetStore, origin: Self.origin(from), line: line))
            } catch {
                outcome = .failure(error)
            }
            line.finish()
            try? targetStore.close()
            try? sourceStore.close()
            await targetWriter.release()
            await sourceWriter.release()
            let summary = try outcome.get()
            let seconds = (ContinuousClock.now - start).formatted(
                .units(allowed: [.seconds], fractionalPart: .show(length: 1)))
            print("copied \(from) to \(to)\(summary.resumed ? " (resumed)" : ""): \(summary.description), \(seconds)")
        }
    }

    /// The source as the target records it: a file by its absolute path, so that the same copy
    /// resumes from another working directory; a database by its URL (which holds no password).
    static func origin(_ location: DatabaseLocation) -> String {
        switch location {
        case .file(let path): URL(fileURLWithPath: path).standardizedFileURL.path
        case .postgres(let location): location.description
        }
    }

    /// Copies `source` into `target` with `line` showing how far it came; the failures of the
    /// copy itself as the command's.
    static func copy(
        from source: PhotoStore, to target: PhotoStore, origin: String, line: ProgressLine
    ) async throws -> MirrorCopy.Summary {
        do {
            return try await MirrorCopy(from: source, to: target, origin: origin).run(progress: line.show)
        } catch {
            switch error {
            case .targetHoldsMirror(let path):
                throw CommandFailure(
                    code: .cannotCreate,
                    message: "\(path) holds a mirror already; copy into a new file or an empty database")
            case .targetCopiesAnother(let path, let origin):
                throw CommandFailure(
                    code: .cannotCreate,
                    message:
                        "\(path) holds an unfinished copy from \(origin); finish it with --from \(origin), "
                        + "or copy into another database")
            case .store(let error):
                throw error
            }
        }
    }
}

extension MirrorCopy.Summary {
    /// `1204 photos, 1190 images (120.4 MB stored), 3 sources`.
    var description: String {
        func count(_ table: MirrorTable, _ noun: String) -> String {
            let rows = rows[table, default: 0]
            return "\(rows) \(noun)\(rows == 1 ? "" : "s")"
        }
        let stored = imageBytes > 0 ? " (\(ByteCount.text(imageBytes)) stored)" : ""
        return "\(count(.photos, "photo")), \(count(.images, "image"))\(stored), " + count(.sources, "source")
    }
}

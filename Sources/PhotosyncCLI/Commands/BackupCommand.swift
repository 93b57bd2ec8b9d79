import ArgumentParser
import Foundation
import PhotoStore
import PhotoStoreSQLite

/// `photosync backup --to FILE`: a consistent copy of the database while `run` and `serve` work.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the database into FILE while `photosync run` and `serve` go on, and verify the copy.",
        discussion: """
            Copies the database as it stands when the backup starts, with SQLite's online backup API: \
            `run` keeps writing meanwhile and is never blocked. The copy is written to FILE.partial \
            (0600), checked as `photosync verify` checks (SQLite's integrity check, every image \
            against its SHA-256), and only then renamed to FILE, replacing an earlier backup. A \
            backup that is killed or fails leaves FILE as it was. Exits 65 when the copy does not \
            verify, 74 when a file cannot be read or written. To restore, stop `photosync run` and \
            copy FILE over the database (removing its -wal and -shm files).

            From PostgreSQL, FILE is an SQLite mirror made as `photosync copy` makes one, from one \
            snapshot: `photosync copy --from FILE --to postgres://...` restores it into an empty \
            database. For the whole database, use pg_dump.
            """)

    @OptionGroup var database: DatabaseOptions

    @Option(name: .customLong("to"), help: ArgumentHelp("The backup file to write.", valueName: "file"))
    var destination: String

    func validate() throws {
        if destination.isEmpty { throw ValidationError("--to needs a file name") }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        try await reportingErrors {
            let store = try await database.openStore(environment: environment, readers: 2)
            let interactive = isatty(STDERR_FILENO) == 1 && environment["JOURNAL_STREAM"] == nil
            let backup = try BackupFile(final: destination, source: store.path)
            let line = ProgressLine(interactive: interactive)
            let start = ContinuousClock.now
            if let files = store.files {
                try await files.backup(to: backup.partial, progress: line.show)
            } else {
                // A server's database: a file anyone can open, the same rows as `photosync copy`
                // writes, from one snapshot.
                let file = try PhotoStore(path: backup.partial)
                defer { try? file.close() }
                _ = try await CopyCommand.copy(from: store, to: file, origin: store.path, line: line)
                // Everything into FILE itself: its log stays behind when it is renamed.
                try await file.files?.checkpoint()
            }
            let copy = try PhotoStore.openExisting(path: backup.partial)
            let report = try await copy.archive.verify(progress: line.show)
            try? copy.close()
            line.finish()
            guard report.isClean else {
                backup.discard()
                let count = report.problems.count + report.integrityErrors.count
                throw CommandFailure(
                    code: .dataError,
                    message:
                        "the copy of \(store.path) did not verify (\(count) problem\(count == 1 ? "" : "s")); "
                        + "\(destination) is unchanged: run `photosync verify` on the database")
            }
            try backup.commit()
            let size = ByteCount.text(Int64(backup.finalSize))
            let seconds = (ContinuousClock.now - start).formatted(
                .units(allowed: [.seconds], fractionalPart: .show(length: 1)))
            let images = "\(report.imagesChecked) images verified"
            print("backed up \(store.path) to \(destination): \(size), \(images), \(seconds)")
        }
    }
}

/// The backup's file while it is written (`FILE.partial`, 0600, locked against a second
/// backup to the same file), and its rename to `FILE` once it verified.
private final class BackupFile {
    let final: String
    let partial: String
    private let descriptor: Int32

    /// - Throws: ``CommandFailure`` (74) when FILE is the database itself, its directory does not
    ///   exist, or the partial file cannot be created; (73) when another backup writes it.
    init(final: String, source: String) throws(CommandFailure) {
        self.final = final
        partial = final + ".partial"
        let target = URL(fileURLWithPath: final).resolvingSymlinksInPath().path
        if target == URL(fileURLWithPath: source).resolvingSymlinksInPath().path {
            throw CommandFailure(code: .usage, message: "--to \(final) is the database itself; name another file")
        }
        var status = stat()
        if stat(final, &status) == 0, status.st_mode & S_IFMT == S_IFDIR {
            throw CommandFailure(code: .usage, message: "--to \(final) is a directory; name a file in it")
        }
        // O_TRUNC comes after the lock: a second backup must not empty the first one's copy.
        let descriptor = open(partial, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CommandFailure(
                code: .cannotCreate, message: "cannot create \(partial): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw CommandFailure(code: .cannotCreate, message: "another photosync backup is writing \(partial)")
        }
        // A partial file a killed backup left may have any content and mode.
        guard ftruncate(descriptor, 0) == 0, fchmod(descriptor, 0o600) == 0 else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw CommandFailure(code: .cannotCreate, message: "cannot write \(partial): \(reason)")
        }
        // Left by a killed backup, they would be read as part of the new copy.
        for suffix in ["-journal", "-wal", "-shm"] { unlink(partial + suffix) }
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    var finalSize: Int {
        var status = stat()
        return stat(final, &status) == 0 ? Int(status.st_size) : 0
    }

    /// Renames the verified copy to FILE in one step, and makes the rename durable.
    func commit() throws(CommandFailure) {
        guard fsync(descriptor) == 0 else {
            throw CommandFailure(code: .ioError, message: "cannot sync \(partial): \(String(cString: strerror(errno)))")
        }
        // SQLite would read a stale log left beside FILE (by a `run` pointed at it) into the new copy.
        for suffix in ["-wal", "-shm", "-journal"] { unlink(final + suffix) }
        guard rename(partial, final) == 0 else {
            throw CommandFailure(
                code: .cannotCreate,
                message: "cannot rename \(partial) to \(final): \(String(cString: strerror(errno)))")
        }
        // The copy's own log, emptied into it by a checkpoint before it was verified.
        for suffix in ["-wal", "-shm"] { unlink(partial + suffix) }
        let parent = (final as NSString).deletingLastPathComponent
        let directory = open(parent.isEmpty ? "." : parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }

    /// Removes the copy that did not verify.
    func discard() {
        for suffix in ["", "-wal", "-shm"] { unlink(partial + suffix) }
    }
}

/// How far `backup` and `copy` have come: a live line on stderr in a terminal (pages or rows
/// copied, then images verified), and in a log one line a copied table.
final class ProgressLine: Sendable {
    private let interactive: Bool

    init(interactive: Bool) {
        self.interactive = interactive
    }

    func show(_ progress: BackupProgress) {
        guard interactive, progress.pagesTotal > 0 else { return }
        let percent = progress.pagesCopied * 100 / progress.pagesTotal
        write("copying: \(percent)% (\(progress.pagesCopied)/\(progress.pagesTotal) pages)")
    }

    /// In a terminal, the live line; elsewhere (a log), one line a table.
    func show(_ progress: MirrorCopy.Progress) {
        guard interactive else {
            if progress.tableComplete {
                FileHandle.standardError.write(Data("copied \(progress.table.rawValue): \(progress.rows) rows\n".utf8))
            }
            return
        }
        let bytes = progress.imageBytes > 0 ? ", \(ByteCount.text(progress.imageBytes)) of images" : ""
        write("copying \(progress.table.rawValue): \(progress.rows) rows (\(progress.totalRows) in all\(bytes))")
    }

    func show(_ progress: VerificationProgress) {
        guard interactive, progress.imagesChecked % 64 == 0 || progress.imagesChecked == progress.imagesTotal else {
            return
        }
        write("verifying the copy: \(progress.imagesChecked)/\(progress.imagesTotal) images")
    }

    func finish() {
        if interactive { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
    }

    private func write(_ text: String) {
        FileHandle.standardError.write(Data("\r\u{1B}[2K\(text)".utf8))
    }
}

import ArgumentParser
import Foundation
import Networking
import PhotoStore
import PhotoSync

/// Turns any error a command meets into one line on stderr and its documented exit code.
enum ErrorReporting {
    /// Prints `photosync: <what to fix>` and returns the exit code to throw. A usage error (64:
    /// no access key, a search FTS5 cannot parse) ends with `(see '<command> --help')`, as
    /// argument-parser's errors do (``PhotosyncCommand/runFromCommandLine(_:)``).
    static func report(_ error: any Error, command: String = "photosync") -> ExitCode {
        if let exit = error as? ExitCode { return exit }
        let (code, message) = classify(error)
        if let message {
            printError(code == .usage ? "\(message) (see '\(command) --help')" : message)
        }
        return code.exitCode
    }

    /// The exit code and message of `error`: see ``CommandError/outcome``.
    static func classify(_ error: any Error) -> (PhotosyncExitCode, String?) {
        CommandError(error).outcome
    }

    /// Under journald the line carries the error priority (`<3>`), as the log lines carry theirs.
    static func printError(_ message: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        let priority = DaemonLogHandler.Format.detect(environment: environment) == .journal ? "<3>" : ""
        let line = priority + "photosync: " + message.replacingOccurrences(of: "\n", with: " ") + "\n"
        FileHandle.standardError.write(Data(line.utf8))
    }
}

/// Every way a command can end in failure, by the module whose error ended it.
///
/// ``outcome`` is the one table from cause to exit code: it switches exhaustively over each
/// module's error, with no `default`, so a case added to any of them does not compile until it
/// is given its exit code here.
enum CommandError: Error {
    case configuration(ConfigurationError)
    case proxy(ProxySettingsError)
    case store(StoreError)
    case writerLock(WriterLockError)
    case spool(SpoolError)
    case sync(SyncError)
    case command(CommandFailure)
    /// SIGTERM or SIGINT stopped the command: a success.
    case cancelled
    /// An error no module declares: a bug.
    case unexpected(String)

    /// Sorts an error a command's body threw (argument parser's `run()` is untyped) by its type.
    init(_ error: any Error) {
        switch error {
        case let error as CommandError: self = error
        case let error as ConfigurationError: self = .configuration(error)
        case let error as ProxySettingsError: self = .proxy(error)
        case let error as StoreError: self = .store(error)
        case let error as WriterLockError: self = .writerLock(error)
        case let error as SpoolError: self = .spool(error)
        case let error as SyncError: self = .sync(error)
        case let error as CommandFailure: self = .command(error)
        case is CancellationError: self = .cancelled
        default: self = .unexpected(error.localizedDescription)
        }
    }

    /// The exit code README documents for this failure, and the line to print (nil: none).
    var outcome: (code: PhotosyncExitCode, message: String?) {
        switch self {
        case .configuration(let error):
            (error.exitCode, error.description)
        case .proxy(let error):
            (.config, error.localizedDescription)
        case .store(let error):
            (Self.exitCode(for: error), error.localizedDescription)
        case .writerLock(let error):
            switch error {
            case .held, .leased: (.writerLockHeld, error.localizedDescription)
            case .cannotLock: (.ioError, error.localizedDescription)
            }
        case .spool(let error):
            (.ioError, error.localizedDescription)
        case .sync(let error):
            Self.outcome(of: error)
        case .command(let failure):
            (failure.code, failure.message)
        case .cancelled:
            (.success, nil)
        case .unexpected(let description):
            (.internalError, "internal error: \(description)")
        }
    }

    private static func exitCode(for error: StoreError) -> PhotosyncExitCode {
        switch error {
        case .invalidSearch:
            .usage
        case .busy, .unavailable:
            // Another program held the database past the wait, or its server was away: trying
            // again may pass.
            .tempFailure
        case .loginRefused:
            .noPermission
        case .connectionMisconfigured:
            // TLS or a pooler as configured: a restart changes nothing until the configuration does.
            .config
        case .readOnlyStandby:
            .ioError
        case .writerLeaseLost:
            // As when the lease is held at the start: another run writes the database.
            .writerLockHeld
        case .diskFull, .corrupt:
            // Nothing a restart can mend (the unit does not restart after 74).
            .ioError
        case .missing, .cannotOpen, .notAPhotosyncDatabase, .newerSchema, .olderSchema, .unknownPhoto,
            .unknownImageJob, .imageTooLarge, .imageSizeMismatch, .cannotReadImageFile, .cannotWriteImageFile,
            .databaseFailure, .interrupted:
            .ioError
        }
    }

    /// A ``SyncError`` is mapped by the error of the layer that caused it, with a few words
    /// saying where it came from.
    private static func outcome(of error: SyncError) -> (code: PhotosyncExitCode, message: String?) {
        switch error {
        case .accessKeyRejected(let cause):
            (.noPermission, cause.localizedDescription)
        case .apiUnavailable(let cause):
            (.unavailable, "the Unsplash API is unavailable: \(cause.localizedDescription)")
        case .inconsistentPage(let contradiction):
            (.unavailable, "the Unsplash API answered a page that contradicts itself: \(contradiction)")
        case .sourceNotFound(let failure):
            (.config, "\(failure); fix or remove it")
        case .sourcesNotFound(let failures):
            (
                .config,
                failures.map(\.description).joined(separator: "; ")
                    + "; the other sources are synced; fix or remove \(failures.count == 1 ? "it" : "them")"
            )
        case .store(let cause):
            (exitCode(for: cause), error.localizedDescription)
        case .spool(let cause):
            CommandError.spool(cause).outcome
        case .cancelled:
            (.success, nil)
        case .unexpected(let description):
            (.internalError, "internal error: \(description)")
        }
    }
}

/// A failure a command names itself, with its exit code.
struct CommandFailure: Error {
    var code: PhotosyncExitCode
    var message: String
}

extension AsyncParsableCommand {
    /// Runs `body`, reporting whatever it throws as one line and an exit code.
    func reportingErrors(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch {
            let name = Self.configuration.commandName.map { "photosync " + $0 } ?? "photosync"
            let code = ErrorReporting.report(error, command: name)
            if code != .success { throw code }
        }
    }
}

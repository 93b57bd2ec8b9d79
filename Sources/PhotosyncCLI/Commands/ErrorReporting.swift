import ArgumentParser
import Foundation
import Networking
import PhotoStore
import PhotoSync

/// Turns any error a command meets into one line on stderr and its documented exit code.
enum ErrorReporting {
    /// Prints `photosync: <what to fix>` and returns the exit code to throw.
    static func report(_ error: any Error) -> ExitCode {
        if let exit = error as? ExitCode { return exit }
        let (code, message) = classify(error)
        if let message {
            printError(message)
        }
        return code.exitCode
    }

    /// The one table from cause to exit code. A ``SyncError`` is classified by the error of the
    /// layer that caused it, with a few words saying where it came from.
    static func classify(_ error: any Error) -> (PhotosyncExitCode, String?) {
        switch error {
        case is CancellationError:
            return (.success, nil)
        case let error as ConfigurationError:
            return (error.exitCode, error.description)
        case StoreError.invalidSearch:
            return (.usage, error.localizedDescription)
        case let error as StoreError:
            return (.ioError, error.localizedDescription)
        case let error as SpoolError:
            return (.ioError, error.localizedDescription)
        case let error as WriterLockError:
            switch error {
            case .held: return (.writerLockHeld, error.localizedDescription)
            case .cannotLock: return (.ioError, error.localizedDescription)
            }
        case let error as SyncError:
            switch error {
            case .accessKeyRejected(let cause): return (.noPermission, cause.localizedDescription)
            case .apiUnavailable(let cause): return (.unavailable, "the Unsplash API is unavailable: \(cause.localizedDescription)")
            case .inconsistentPage(let contradiction): return (.unavailable, "the Unsplash API answered a page that contradicts itself: \(contradiction)")
            case .sourceNotFound(let failure): return (.config, "\(failure); fix or remove it")
            case .sourcesNotFound(let failures):
                return (.config, failures.map(\.description).joined(separator: "; ") + "; the other sources are synced; fix or remove \(failures.count == 1 ? "it" : "them")")
            case .store(let cause): return (classify(cause).0, error.localizedDescription)
            case .spool(let cause): return classify(cause)
            }
        case let error as ProxySettingsError:
            return (.config, error.localizedDescription)
        case let error as CommandFailure:
            return (error.code, error.message)
        default:
            return (PhotosyncExitCode(rawValue: 70), "internal error: \(error.localizedDescription)")
        }
    }

    /// Under journald the line carries the error priority (`<3>`), as the log lines carry theirs.
    static func printError(_ message: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
        let priority = DaemonLogHandler.Format.detect(environment: environment) == .journal ? "<3>" : ""
        let line = priority + "photosync: " + message.replacingOccurrences(of: "\n", with: " ") + "\n"
        FileHandle.standardError.write(Data(line.utf8))
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
            let code = ErrorReporting.report(error)
            if code != .success { throw code }
        }
    }
}

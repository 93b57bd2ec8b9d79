import Foundation
import Networking
import PhotoStore
import PhotoStoreSQLite
import PhotoSync
import Testing
import UnsplashAPI

@testable import PhotosyncCLI

/// README's exit-code table, case by case: one example of every module's error and the code it
/// must end the command with. The mapping's `switch`es have no `default`, so a new case does
/// not compile until it has a code; this table checks the code is the documented one.
@Suite struct ErrorMappingTests {
    static let unreachable = UnsplashError.network(
        .transport(TransportError(.connectionRefused), url: "https://api.unsplash.com/photos"))
    static let rejected = UnsplashError.accessKeyRejected(detail: "OAuth error")

    static let table: [(name: String, error: CommandError, code: Int32)] = [
        ("invalid setting", .configuration(ConfigurationError(.invalidValue, source: "--per-page", message: "no")), 78),
        ("no access key", .configuration(ConfigurationError(.missingAccessKey, source: nil, message: "no key")), 64),
        ("bad proxy variable", .proxy(.invalid(variable: "http_proxy", reason: "not a proxy URL")), 78),
        ("invalid search", .store(.invalidSearch("\"")), 64),
        ("missing database", .store(.missing(path: "/x.sqlite")), 74),
        ("unopenable database", .store(.cannotOpen(path: "/x.sqlite", reason: "EACCES")), 74),
        ("foreign database", .store(.notAPhotosyncDatabase(path: "/x.sqlite")), 74),
        ("newer schema", .store(.newerSchema(path: "/x.sqlite")), 74),
        ("older schema", .store(.olderSchema(path: "/x.sqlite")), 74),
        ("unknown photo", .store(.unknownPhoto(path: "/x.sqlite", photoID: "a")), 74),
        ("unknown image job", .store(.unknownImageJob(path: "/x.sqlite", photoID: "a", variant: .raw)), 74),
        ("image too large", .store(.imageTooLarge(photoID: "a", variant: .raw, byteCount: 1)), 74),
        ("image size mismatch", .store(.imageSizeMismatch(file: "f", expected: 1, actual: 2)), 74),
        ("unreadable image file", .store(.cannotReadImageFile(file: "f", reason: "EIO")), 74),
        ("unwritable image file", .store(.cannotWriteImageFile(file: "f", reason: "ENOSPC")), 74),
        ("disk full", .store(.diskFull(path: "/x.sqlite", operation: "storing a page")), 74),
        ("database busy", .store(.busy(path: "/x.sqlite", operation: "storing a page")), 75),
        ("database corrupt", .store(.corrupt(path: "/x.sqlite", operation: "listing photos")), 74),
        (
            "database failure",
            .store(.databaseFailure(path: "/x.sqlite", operation: "insert", code: 1299, reason: "NOT NULL")), 74
        ),
        ("interrupted read", .store(.interrupted(path: "/x.sqlite")), 74),
        ("writer lock held", .writerLock(.held(path: "/x.sqlite.lock", pid: 42)), 73),
        ("writer lock unusable", .writerLock(.cannotLock(path: "/x.sqlite.lock", reason: "EROFS")), 74),
        ("spool", .spool(.cannotWrite(path: "/x.sqlite.downloads/b", reason: "ENOSPC")), 74),
        ("key rejected", .sync(.accessKeyRejected(rejected)), 77),
        ("API unavailable", .sync(.apiUnavailable(unreachable)), 69),
        (
            "inconsistent page",
            .sync(.inconsistentPage(PageContradiction(walk: "backfill", cursor: nil, reason: "empty"))), 69
        ),
        ("source not found", .sync(.sourceNotFound(SourceNotFound(source: "user:nobody", detail: "404"))), 78),
        ("sources not found", .sync(.sourcesNotFound([SourceNotFound(source: "user:nobody", detail: "404")])), 78),
        ("sync store", .sync(.store(.invalidSearch("\""))), 64),
        ("sync store I/O", .sync(.store(.missing(path: "/x.sqlite"))), 74),
        ("sync disk full", .sync(.store(.diskFull(path: "/x.sqlite", operation: "storing images"))), 74),
        ("sync database busy", .sync(.store(.busy(path: "/x.sqlite", operation: "storing a page"))), 75),
        ("sync spool", .sync(.spool(.cannotCreate(path: "/x.sqlite.downloads", reason: "EACCES"))), 74),
        ("sync cancelled", .sync(.cancelled), 0),
        ("sync bug", .sync(.unexpected("a bug")), 70),
        ("command failure", .command(CommandFailure(code: .tempFailure, message: "run again later")), 75),
        ("cancelled", .cancelled, 0),
        ("bug", .unexpected("a bug"), 70),
    ]

    @Test func everyErrorEndsWithItsDocumentedExitCode() {
        for (name, error, code) in Self.table {
            #expect(error.outcome.code.rawValue == code, "\(name)")
        }
    }

    @Test func aStopIsSilentAndEveryFailureSaysOneLine() {
        for (name, error, code) in Self.table {
            let message = error.outcome.message
            if code == 0 {
                #expect(message == nil, "\(name)")
            } else {
                #expect(message.map { !$0.isEmpty && !$0.contains("\n") } == true, "\(name)")
            }
        }
    }

    @Test func errorsAreSortedByTheirTypeNotTheirName() {
        #expect(ErrorReporting.classify(StoreError.missing(path: "/x")).0 == .ioError)
        #expect(ErrorReporting.classify(SyncError.cancelled).0 == .success)
        #expect(ErrorReporting.classify(CancellationError()).0 == .success)
        #expect(ErrorReporting.classify(SyncError.apiUnavailable(Self.unreachable)).0 == .unavailable)
        struct Unknown: Error {}
        #expect(ErrorReporting.classify(Unknown()).0.rawValue == 70)
    }

    @Test func anOutageSaysWhatTheTransportSaw() {
        let message = CommandError.sync(.apiUnavailable(Self.unreachable)).outcome.message ?? ""
        #expect(
            message == "the Unsplash API is unavailable: https://api.unsplash.com/photos could not be reached: "
                + "the connection was refused")
    }
}

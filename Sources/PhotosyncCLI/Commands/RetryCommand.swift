import ArgumentParser
import Foundation
import PhotoStore

/// `photosync retry`: failed images due now, without waiting for their backoff.
struct RetryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry",
        abstract: "Make failed images due now, without waiting for their backoff.",
        discussion: """
            Without arguments it requeues the images waiting for a retry after a failure that may \
            pass (a 5xx, a dropped connection). With --all it also requeues those that failed for \
            good (404, 410, a refused host, over the size cap, not an image). With photo ids it \
            requeues every failed image of those photos, of either kind. Requeued images start \
            afresh: their attempts and backoff are reset. All of it is one transaction: an unknown \
            id requeues nothing and exits 1. A running daemon fetches them at its next round; \
            'photosync run --once' at once.
            """)

    @OptionGroup var database: DatabaseOptions

    @Flag(help: "Also requeue the images that failed for good.")
    var all = false

    @Argument(help: ArgumentHelp("Photos whose failed images to requeue.", valueName: "id"))
    var photoIDs: [String] = []

    func validate() throws {
        if all && !photoIDs.isEmpty {
            throw ValidationError("give --all or photo ids, not both")
        }
    }

    func run() async throws {
        try await reportingErrors {
            let store = try await database.openStore(
                environment: ProcessInfo.processInfo.environment, forSmallWrites: true)
            let path = store.path
            let request: RetryRequest = photoIDs.isEmpty ? (all ? .all : .transient) : .photos(photoIDs)
            let outcome: RetryOutcome
            do throws(StoreError) {
                outcome = try await store.imageQueue.requeue(request)
            } catch .unknownPhoto(_, let photoID) {
                throw CommandFailure(code: .notFound, message: "no photo \(photoID) in \(path); nothing was requeued")
            } catch {
                throw error
            }
            print(Self.text(outcome, request: request))
        }
    }

    static func text(_ outcome: RetryOutcome, request: RetryRequest) -> String {
        var lines = ["requeued \(outcome.requeued) image\(outcome.requeued == 1 ? "" : "s")"]
        if request == .transient {
            lines[0] += " (those that failed for good stay failed: 'photosync retry --all' requeues them too)"
        }
        for id in outcome.nothingToRetry {
            lines.append("  \(id): no failed image (stored, or not tried yet)")
        }
        return lines.joined(separator: "\n")
    }
}

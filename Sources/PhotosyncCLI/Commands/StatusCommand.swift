import ArgumentParser
import Foundation
import PhotoStore
import PhotoSync
import UnsplashAPI

/// `photosync status`: what the database holds and how far the sync has come.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show how many photos and images are stored, and how far the sync has come.",
        discussion: "Reads the database while `photosync run` writes it.")

    @OptionGroup var database: DatabaseOptions

    @Flag(help: "Print JSON instead of text.")
    var json = false

    func run() async throws {
        try await reportingErrors {
            let environment = ProcessInfo.processInfo.environment
            let location = try database.database(environment: environment)
            let store = try await location.openExisting(environment: environment, mapped: true)
            let stats = try await store.catalog.statistics()
            var storage = StatusStorage(store: store, at: location, options: database, environment: environment)
            storage.writerLease = try await store.storage.writerLease()
            storage.standby = try await store.storage.standby()
            if json {
                print(try Self.json(stats, storage: storage))
            } else {
                let failures = try await store.imageQueue.failedImages(limit: 5)
                let retrying = try await store.imageQueue.retryingImages(limit: 5)
                print(
                    Self.text(
                        stats, failures: failures, rejected: try await store.ledger.rejectedPhotos(limit: 5),
                        retrying: retrying, storage: storage))
            }
        }
    }

    static func json(_ stats: StoreStatistics, storage: StatusStorage? = nil) throws -> String {
        var fields: [String: JSONValue] = [
            "version": .string(PhotosyncVersion.number),
            "photos": .int(stats.photos),
            "images_stored": .int(stats.imagesStored),
            "images_pending": .int(stats.imagesPending),
            "images_failed": .int(stats.imagesFailed),
            "bytes_stored": .int(stats.bytesStored),
            "backfill_cursor": stats.backfillNext.map { .string($0.absoluteString) } ?? .null,
            "backfill_complete": .bool(stats.backfillComplete),
            "backfill_stalled": stats.backfillStall.map { stall in
                .object(["reason": .string(stall.reason), "since": .string(stall.since.iso8601Text)])
            } ?? .null,
            "photos_rejected": .int(stats.rejectedPhotos),
            "images_skipped_plus": .int(stats.plusPhotos),
            "sources": .array(stats.sources.map(json)),
            "last_page_at": stats.lastPageAt.map { .string($0.iso8601Text) } ?? .null,
            "images_retrying": .int(stats.imagesRetrying),
            "next_image_retry_at": stats.nextImageRetryAt.map { .string($0.iso8601Text) } ?? .null,
            "images_pruned": .int(stats.imagesPruned),
            "bytes_pruned": .int(stats.bytesPruned),
            "configuration_loaded": stats.configurationLoaded.map { load in
                .object(["at": .string(load.at.iso8601Text), "reload": .bool(load.reload)])
            } ?? .null,
        ]
        fields.merge(storage?.jsonFields ?? [:]) { _, new in new }
        return try JSONOutput.string(.object(fields))
    }

    /// One source in `status --json`.
    static func json(_ source: SourceStatistics) -> JSONValue {
        .object([
            "source": .string(source.name),
            "photos": .int(source.photos),
            "backfill_complete": .bool(source.state.backfillComplete),
            "last_page_at": source.state.lastPageAt.map { .string($0.iso8601Text) } ?? .null,
            "active": .bool(source.active),
            "error": source.failure.map { .string($0.message) } ?? .null,
        ])
    }

    /// One source in `status`: photos, backfill, last page, and whether it is inactive or failing.
    static func line(_ source: SourceStatistics) -> String {
        var parts = ["\(source.photos) photos"]
        parts.append(
            source.state.backfillComplete
                ? "backfill complete"
                : source.state.backfillNext == nil ? "backfill not started" : "backfill in progress")
        parts.append("last page \(source.state.lastPageAt.map { $0.iso8601Text } ?? "never")")
        if !source.active { parts.append("inactive") }
        if let failure = source.failure {
            parts.append("failing since \(failure.since.iso8601Text): \(failure.message)")
        }
        return "  \(source.name): " + parts.joined(separator: ", ")
    }

    static func text(
        _ stats: StoreStatistics, failures: [ImageFailure], rejected: [RejectedPhoto] = [],
        retrying: [ImageFailure] = [], storage: StatusStorage? = nil
    ) -> String {
        var backfill = Self.backfill(stats)
        if let stall = stats.backfillStall {
            backfill += "; stalled since \(stall.since.iso8601Text), retrying: \(stall.reason)"
        }
        var lines = [
            "photos          \(stats.photos)",
            "photos rejected \(stats.rejectedPhotos)",
            "images stored   \(stats.imagesStored) (\(ByteCount.text(stats.bytesStored)))",
            "images pending  \(stats.imagesPending)" + Self.retries(stats),
            "images failed   \(stats.imagesFailed)"
                + (stats.imagesFailed > 0 ? " (for good; 'photosync retry --all' tries them again)" : ""),
            "backfill        \(backfill)",
            "last page       \(stats.lastPageAt.map { $0.iso8601Text } ?? "never")",
            "images skipped  \(stats.plusPhotos) (Unsplash+, which needs a paid licence)",
        ]
        if stats.imagesPruned > 0 {
            lines.append(
                "images pruned   \(stats.imagesPruned) (\(ByteCount.text(stats.bytesPruned)), "
                    + "to stay within storage_limit)")
        }
        lines += storage?.lines(bytesStored: stats.bytesStored) ?? []
        if let load = stats.configurationLoaded {
            let how = load.reload ? "reloaded on SIGHUP" : "at start"
            lines.append("configuration   loaded \(load.at.iso8601Text) (\(how))")
        }
        if !stats.sources.isEmpty {
            lines.append("sources")
            lines += stats.sources.map(line)
        }
        for photo in rejected {
            lines.append("  rejected \(photo.photoID ?? "(no id)"): \(photo.reason)")
        }
        for image in retrying {
            let next = image.nextAttemptAt.map { "next \($0.iso8601Text)" } ?? "due now"
            let attempts = "\(image.attempts) attempts"
            lines.append("  retrying \(image.photoID) (\(image.variant), \(attempts), \(next)): \(image.lastError)")
        }
        for failure in failures {
            lines.append(
                "  failed \(failure.photoID) (\(failure.variant), \(failure.attempts) attempts): \(failure.lastError)")
        }
        return lines.joined(separator: "\n")
    }

    /// The backfill of every active source: complete; complete but for sources the API would
    /// not list (a 404 among healthy sources, which `sources` details); in progress, with the
    /// feed's next page when the feed is the one going on; not started only when no source has
    /// begun.
    static func backfill(_ stats: StoreStatistics) -> String {
        if stats.backfillComplete { return "complete" }
        if let next = stats.backfillNext { return "in progress, next \(next.absoluteString)" }
        let active = stats.sources.filter(\.active)
        let unfinished = active.filter { !$0.state.backfillComplete }
        let failing = unfinished.filter { $0.failure != nil }
        if !failing.isEmpty && failing.count == unfinished.count {
            let names = failing.map(\.name).joined(separator: ", ")
            return active.count == failing.count
                ? "not started: every source is failing (\(names))"
                : "complete but for \(failing.count) failing source\(failing.count == 1 ? "" : "s"): \(names)"
        }
        let begun = active.contains { $0.state.backfillComplete || $0.state.backfillNext != nil }
        return begun ? "in progress" : "not started"
    }

    /// Of the pending images, those waiting for a retry after a transient failure, and when the
    /// first is due.
    static func retries(_ stats: StoreStatistics) -> String {
        guard stats.imagesRetrying > 0 else { return "" }
        let next = stats.nextImageRetryAt.map { "the next at \($0.iso8601Text)" } ?? "due now"
        return " (\(stats.imagesRetrying) to retry after failing, \(next); 'photosync retry' makes them due now)"
    }
}

enum JSONOutput {
    static func string(_ value: JSONValue) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

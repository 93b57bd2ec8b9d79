import Foundation
import Logging
import PhotoStore
import PhotoStorePostgres
import PhotoStoreSQLite
import Synchronization
import TestSupport
import Testing

/// The writer lease of a PostgreSQL database: one holder at a time, a standby that waits for it,
/// and the fence that keeps a holder whose lease was taken from writing.
@Suite("PostgreSQL's writer lease", .timeLimit(.minutes(5)))
struct PostgresWriterLeaseTests {
    let logger = Logger(label: "photosync.contract")
    /// A lease long enough never to lapse on a machine loaded by the whole suite, where the
    /// test is not about its expiry; one of 10 s where it is (renewed every 3.3 s, it rides out
    /// the stalls of the suite's first minute, where 3 s lapsed).
    static let long = PostgresWriterLease.Timing(duration: .seconds(60), poll: .milliseconds(100))
    static let short = PostgresWriterLease.Timing(duration: .seconds(10), poll: .milliseconds(100))

    func open(
        _ url: String, host: String, pid: Int32, timing: PostgresWriterLease.Timing = Self.long,
        standby: (@Sendable (WriterLeaseHolder) -> Void)? = nil
    ) async throws -> (PhotoStore, PostgresWriterLease) {
        try await PostgresStore.openForWriting(
            try PostgresLocation(parsing: url), password: nil, host: host, pid: pid, timing: timing,
            standby: standby, logger: logger)
    }

    @Test func aSecondWriterIsRefusedNamingTheHolderAndAStandbyTakesTheNextEpochOnceItIsGivenUp() async throws {
        let url = try await PostgresTestCluster.shared.makeDatabase()
        // GIVEN a holder on one host
        let (first, lease) = try await open(url, host: "host-a", pid: 101)
        defer { try? first.close() }

        // WHEN a run on another host asks for the lease, then stands by for it
        await #expect(throws: WriterLockError.leased(database: first.path, host: "host-a", pid: 101)) {
            _ = try await open(url, host: "host-b", pid: 202)
        }
        let seen = Mutex<[WriterLeaseHolder]>([])
        let standby = Task {
            try await open(url, host: "host-b", pid: 202) { holder in seen.withLock { $0.append(holder) } }
        }
        while seen.withLock({ $0.isEmpty }) { try await Task.sleep(for: .milliseconds(20)) }
        let holder = try #require(seen.withLock { $0.first })
        #expect((holder.host, holder.pid, holder.epoch, holder.expired) == ("host-a", 101, lease.epoch, false))
        #expect(try await first.storage.writerLease()?.pid == 101)

        // THEN once the holder gives it up, the standby takes it, with the next epoch
        await lease.release()
        let (second, taken) = try await standby.value
        defer { try? second.close() }
        #expect(taken.epoch == lease.epoch + 1)
        #expect(!lease.wasLost, "given up, not lost")
        let now = try #require(try await second.storage.writerLease())
        #expect((now.host, now.pid, now.epoch) == ("host-b", 202, taken.epoch))
        await taken.release()
        #expect(try await second.storage.writerLease()?.expired == true)
    }

    @Test func aStandbyStopsWaitingWhenCancelled() async throws {
        let url = try await PostgresTestCluster.shared.makeDatabase()
        let (first, lease) = try await open(url, host: "host-a", pid: 101)
        defer { try? first.close() }
        let cancelled = Task { try await open(url, host: "host-b", pid: 202) { _ in } }
        try await Task.sleep(for: .milliseconds(300))
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { _ = try await cancelled.value }
        #expect(try await first.storage.writerLease()?.pid == 101)
        await lease.release()
    }

    /// Cancelled before its connection is open, `run` stops as cancelled, not as a store away.
    @Test func aStandbyCancelledWhileItConnectsStopsAsCancelled() async throws {
        let url = try await PostgresTestCluster.shared.makeDatabase()
        let cancelled = Task { try await open(url, host: "host-b", pid: 202) { _ in } }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { _ = try await cancelled.value }
    }

    @Test func aStandbyWaitsOutALeaseThatIsNoLongerRenewed() async throws {
        let url = try await PostgresTestCluster.shared.makeDatabase()
        let (first, lease) = try await open(url, host: "host-a", pid: 101, timing: Self.short)
        defer { try? first.close() }

        // WHEN the holder's renewals stop (its pool gone, as with a host cut off)
        let standby = Task { try await open(url, host: "host-b", pid: 202) { _ in } }
        let stopped = ContinuousClock.now
        try first.close()

        // THEN the standby takes the lease once it has expired, and not before
        let (second, taken) = try await standby.value
        defer { try? second.close() }
        #expect(ContinuousClock.now - stopped >= .seconds(5), "taken before it expired")
        #expect(taken.epoch == lease.epoch + 1)
        // AND the holder, by its own clock, knows it may no longer act as the writer
        await lease.lost()
        #expect(lease.wasLost && !first.holdsWriterRole())
        await taken.release()
    }

    /// A write's fence is its own statement in a transaction (a page), or part of the one
    /// statement that is the write (a tracking mark, a batch of small images): all are refused.
    @Test(arguments: ["page", "tracking mark", "image batch"])
    func aHolderWhoseLeaseWasTakenWritesNothingAndLearnsItLostIt(firstWrite: String) async throws {
        let url = try await PostgresTestCluster.shared.makeDatabase()
        let (store, lease) = try await open(url, host: "host-a", pid: 101)
        defer { try? store.close() }
        try await store.ledger.commit([Sample.photo("before")])
        #expect(store.holdsWriterRole())

        // WHEN another process takes the lease, as a standby does once it expired
        try await PostgresTestCluster.shared.execute(
            "UPDATE writer_lease SET epoch = epoch + 1, instance = 'another', host = 'host-b', pid = 202",
            in: url)

        // THEN the holder's next write changes nothing and says why
        await #expect(throws: StoreError.writerLeaseLost(path: store.path)) {
            switch firstWrite {
            case "page": try await store.ledger.commit([Sample.photo("after")])
            case "tracking mark": try await store.ledger.markDownloadsTracked(photoIDs: ["before"], at: Date())
            default: try await store.archive.storeImages([ArchiveContractTests.image("before", Data([1, 2, 3]))])
            }
        }
        #expect(try await PostgresTestCluster.shared.query("SELECT count(*) FROM image_chunk", in: url) == "0")
        #expect(try await store.catalog.photo(id: "after") == nil)
        let before = try await store.catalog.photo(id: "before")
        #expect(before != nil && before?.downloadTrackedAt == nil)
        // AND it knows it lost the lease, and no longer acts as the writer
        await lease.lost()
        #expect(lease.wasLost && !store.holdsWriterRole())
        await #expect(throws: StoreError.writerLeaseLost(path: store.path)) {
            try await store.ledger.commit([Sample.photo("later")])
        }
        // AND giving it up leaves the new holder's lease as it is
        await lease.release()
        #expect(try await store.storage.writerLease()?.pid == 202)
    }
}

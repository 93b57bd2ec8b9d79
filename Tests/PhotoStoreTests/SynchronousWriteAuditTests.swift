import Dispatch
import Foundation
import Testing

@testable import PhotoStore

/// Debug builds count the synchronous writes made on a task's thread (`SynchronousWriteAudit`):
/// the sync engine's test checks that it makes none.
@Suite("Synchronous writes on the cooperative pool")
struct SynchronousWriteAuditTests {
    @Test("a synchronous write on a task is counted; one on a thread of its own and an async one are not")
    func synchronousWritesOnTasksAreCounted() async throws {
        try await withStore { store, _ in
            #expect(store.synchronousWritesOnTasks == 0)

            // WHEN an async write runs on a task, and a synchronous one on a thread of its own
            // (as the download tracker's GroupCommit and BlockingWork's)
            try await store.commit([Sample.photo("a")])
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                DispatchQueue(label: "off the pool").async {
                    _ = try? store.ledger.markDownloadsTracked(photoIDs: ["a"], at: Instant.t0)
                    continuation.resume()
                }
            }
            // THEN neither is counted
            #expect(store.synchronousWritesOnTasks == 0)

            // WHEN a synchronous write runs on the task itself
            try store.ledger.markDownloadsTracked(photoIDs: ["a"], at: Instant.t(1))
            // THEN it is
            #expect(store.synchronousWritesOnTasks == 1)
        }
    }
}

import Foundation
import Logging
import PhotoStore

/// What the engine is given and every part of it shares for its whole life: the store it
/// mirrors into, the clock it waits on, the wall clock its records are stamped with, the log,
/// and the progress it reports.
struct SyncEnvironment: Sendable {
    let store: PhotoStore
    let clock: any Clock<Duration>
    let now: @Sendable () -> Date
    let logger: Logger
    let progress: ProgressTracker
}

import Foundation
import Logging
import PhotoStore
import UnsplashAPI

/// What every stage of a round shares: the store it reads and writes, the round's configuration,
/// the API with its rate-limit budget, the round's progress, the clock its records are stamped
/// with, and the log. ``RoundWiring`` makes one per round (a reload starts the next round with a
/// new one); each stage holds it and reads it through ``RoundStage``.
struct RoundContext: Sendable {
    let store: PhotoStore
    let configuration: SyncConfiguration
    let repository: PhotoRepository
    let budget: RateLimitBudget
    let progress: ProgressTracker
    let now: @Sendable () -> Date
    let logger: Logger
}

/// A stage of a round, which reads what the round shares by name (`store`, `logger`...).
protocol RoundStage {
    var round: RoundContext { get }
}

extension RoundStage {
    var store: PhotoStore { round.store }
    var configuration: SyncConfiguration { round.configuration }
    var repository: PhotoRepository { round.repository }
    var budget: RateLimitBudget { round.budget }
    var progress: ProgressTracker { round.progress }
    var now: @Sendable () -> Date { round.now }
    var logger: Logger { round.logger }
}

import CoreMetrics
import Foundation
import Networking
import Synchronization

/// Counts the requests sent to the Unsplash API, by the status they got, as
/// `photosync_api_requests_total{status="200"}` (`status="error"` when no answer came), and the
/// answers to retried attempts again as `photosync_api_retries_total{status="200"}`.
///
/// An API request is one that carries the access key: interceptors see each request as it
/// leaves, after ``Provider`` attached the key on the API's origin. Image downloads carry none
/// and are not counted (they do not spend the rate limit), even where, as with the local stub,
/// images and API share an origin. Every attempt and redirect hop counts, as each does for
/// Unsplash.
public struct APIRequestMetrics: Interceptor {
    private let counters: Counters

    public init(factory: any MetricsFactory) {
        counters = Counters(factory: factory)
    }

    public func didReceive(_ exchange: Exchange) async throws(NetworkError) {
        guard isAPI(exchange.request) else { return }
        counters.increment(status: String(exchange.statusCode))
        if exchange.attempt > 1 { counters.increment(status: String(exchange.statusCode), retry: true) }
    }

    public func didFail(_ request: TransportRequest, error: NetworkError, duration: Duration) async {
        if isAPI(request) { counters.increment(status: "error") }
    }

    private func isAPI(_ request: TransportRequest) -> Bool {
        request.headers["Authorization"] != nil
    }

    /// One counter per status, made once.
    private final class Counters: Sendable {
        private let factory: any MetricsFactory
        /// By label and status.
        private let counters = Mutex<[String: Counter]>([:])

        init(factory: any MetricsFactory) {
            self.factory = factory
        }

        func increment(status: String, retry: Bool = false) {
            let label = retry ? "photosync_api_retries_total" : "photosync_api_requests_total"
            counters.withLock { counters in
                if counters[label + status] == nil {
                    counters[label + status] = Counter(
                        label: label, dimensions: [("status", status)], factory: factory)
                }
                return counters[label + status]!
            }.increment()
        }
    }
}

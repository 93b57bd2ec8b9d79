import CoreMetrics
import Foundation
import Networking
import Synchronization

/// Counts the requests sent to the Unsplash API, by the status they got, as
/// `photosync_api_requests_total{status="200"}` (`status="error"` when no answer came).
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
        if isAPI(exchange.request) { counters.increment(status: String(exchange.statusCode)) }
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
        private let byStatus = Mutex<[String: Counter]>([:])

        init(factory: any MetricsFactory) {
            self.factory = factory
        }

        func increment(status: String) {
            byStatus.withLock { counters in
                if counters[status] == nil {
                    counters[status] = Counter(
                        label: "photosync_api_requests_total", dimensions: [("status", status)], factory: factory)
                }
                return counters[status]!
            }.increment()
        }
    }
}

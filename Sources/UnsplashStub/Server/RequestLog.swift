/// What the stub has answered, for tests to check a client's behaviour against.
struct RequestLog: Sendable {
    /// Enough for any test; bounds memory when the executable serves for days.
    static let capacity = 100_000

    private(set) var requests: [RecordedRequest] = []
    private(set) var apiRequests = 0
    private(set) var imageRequests: [String: Int] = [:]
    /// Tracking requests answered 200, by photo id.
    private(set) var downloadTrackings: [String: Int] = [:]
    /// Every tracking request, whatever its answer, by photo id.
    private(set) var trackingRequests: [String: Int] = [:]

    mutating func record(
        _ request: RecordedRequest, imageName: String? = nil, trackingPhotoID: String? = nil
    ) {
        if requests.count >= Self.capacity {
            requests.removeFirst(Self.capacity / 10)
        }
        requests.append(request)
        if request.kind == .api { apiRequests += 1 }
        if let imageName { imageRequests[imageName, default: 0] += 1 }
        if let trackingPhotoID {
            trackingRequests[trackingPhotoID, default: 0] += 1
            if request.status == 200 { downloadTrackings[trackingPhotoID, default: 0] += 1 }
        }
    }
}

/// Tests waiting for a request to arrive.
struct RequestWaiters: Sendable {
    typealias Predicate = @Sendable (RecordedRequest) -> Bool
    private var waiting: [(predicate: Predicate, continuation: CheckedContinuation<RecordedRequest?, Never>)] = []

    mutating func add(_ predicate: @escaping Predicate, _ continuation: CheckedContinuation<RecordedRequest?, Never>) {
        waiting.append((predicate, continuation))
    }

    mutating func arrived(_ request: RecordedRequest) {
        waiting.removeAll { waiter in
            guard waiter.predicate(request) else { return false }
            waiter.continuation.resume(returning: request)
            return true
        }
    }

    /// Ends every wait with nil: the stub stopped.
    mutating func cancelAll() {
        for waiter in waiting { waiter.continuation.resume(returning: nil) }
        waiting = []
    }
}

extension UnsplashStub {
    /// Every request answered since start or the last `resetRequestLog()`, oldest first
    /// (at most the latest 100,000).
    public func requests() -> [RecordedRequest] {
        log.requests
    }

    /// The first request in the log that matches, or, if none has arrived yet, the first to
    /// arrive that matches (it is logged as its answer is decided, before any delay). Nil when
    /// the stub is not running, or stops first. Lets a test act at a moment of a client's run
    /// without sleeping.
    public func firstRequest(where predicate: @escaping @Sendable (RecordedRequest) -> Bool) async -> RecordedRequest? {
        if let match = log.requests.first(where: predicate) { return match }
        guard isRunning else { return nil }
        return await withCheckedContinuation { waiters.add(predicate, $0) }
    }

    /// API requests (`/photos...`) received, whatever their answer: rejected ones count too.
    public var apiRequestCount: Int { log.apiRequests }

    /// Requests for any rendition of this photo's image, whatever their answer, redirect hops
    /// included. A profile image counts under its name, `profile-<user id>`.
    public func imageRequestCount(photoID: String) -> Int {
        log.imageRequests[photoID] ?? 0
    }

    /// `imageRequestCount(photoID:)` of every image requested at least once.
    public func imageRequestCounts() -> [String: Int] {
        log.imageRequests
    }

    /// Downloads of this photo tracked through its `download_location`: only requests answered
    /// `200` count (not the unauthorized, rate-limited or deliberately failed ones).
    public func downloadTrackingCount(photoID: String) -> Int {
        log.downloadTrackings[photoID] ?? 0
    }

    /// `downloadTrackingCount(photoID:)` of every photo tracked at least once.
    public func downloadTrackingCounts() -> [String: Int] {
        log.downloadTrackings
    }

    /// Requests for this photo's `download_location`, whatever their answer.
    public func downloadTrackingRequestCount(photoID: String) -> Int {
        log.trackingRequests[photoID] ?? 0
    }

    /// Forgets the recorded requests and zeroes the counters (not the rate limit).
    public func resetRequestLog() {
        log = RequestLog()
    }
}

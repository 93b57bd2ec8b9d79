/// What the stub has answered, for tests to check a client's behaviour against.
struct RequestLog: Sendable {
    /// Enough for any test; bounds memory when the executable serves for days.
    static let capacity = 100_000

    private(set) var requests: [RecordedRequest] = []
    private(set) var apiRequests = 0
    private(set) var imageRequests: [String: Int] = [:]
    private(set) var downloadTrackings: [String: Int] = [:]

    mutating func record(_ request: RecordedRequest, imageName: String? = nil, trackedPhotoID: String? = nil) {
        if requests.count >= Self.capacity {
            requests.removeFirst(Self.capacity / 10)
        }
        requests.append(request)
        if request.kind == .api { apiRequests += 1 }
        if let imageName { imageRequests[imageName, default: 0] += 1 }
        if let trackedPhotoID { downloadTrackings[trackedPhotoID, default: 0] += 1 }
    }
}

extension UnsplashStub {
    /// Every request answered since start or the last `resetRequestLog()`, oldest first
    /// (at most the latest 100,000).
    public func requests() -> [RecordedRequest] {
        log.requests
    }

    /// API requests (`/photos...`) received, whatever their answer: rejected ones count too.
    public var apiRequestCount: Int { log.apiRequests }

    /// Requests for any rendition of this photo's image, whatever their answer. A profile image
    /// counts under its name, `profile-<user id>`.
    public func imageRequestCount(photoID: String) -> Int {
        log.imageRequests[photoID] ?? 0
    }

    /// Downloads of this photo tracked through its `download_location`: only requests answered
    /// `200` count (not the unauthorized, rate-limited or deliberately failed ones).
    public func downloadTrackingCount(photoID: String) -> Int {
        log.downloadTrackings[photoID] ?? 0
    }

    /// Forgets the recorded requests and zeroes the counters (not the rate limit).
    public func resetRequestLog() {
        log = RequestLog()
    }
}

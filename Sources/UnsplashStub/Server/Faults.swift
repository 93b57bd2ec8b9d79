/// Failures tests have asked for, consumed as requests arrive.
struct Faults: Sendable {
    struct Countdown: Sendable {
        var remaining: Int
        let status: Int
    }

    var api: Countdown?
    var images: [String: Countdown] = [:]
    var truncatedImages: [String: Int] = [:]
    var imageDelay: Duration?

    /// The status to fail the next API request with, if one is due.
    mutating func nextAPIFailure() -> Int? {
        Self.consume(&api)
    }

    mutating func nextImageFailure(name: String) -> Int? {
        Self.consume(&images[name])
    }

    mutating func nextImageTruncation(name: String) -> Bool {
        guard let remaining = truncatedImages[name], remaining > 0 else { return false }
        truncatedImages[name] = remaining > 1 ? remaining - 1 : nil
        return true
    }

    private static func consume(_ countdown: inout Countdown?) -> Int? {
        guard let current = countdown, current.remaining > 0 else { return nil }
        countdown = current.remaining > 1 ? Countdown(remaining: current.remaining - 1, status: current.status) : nil
        return current.status
    }
}

extension UnsplashStub {
    /// Answers the next `count` API requests that pass the authorization and rate-limit checks
    /// with `status` instead (they still use up the rate limit, as Unsplash's failures do).
    /// A 429 comes with Unsplash's plain-text `Rate Limit Exceeded` body; other statuses with a
    /// JSON `{"errors": [...]}` body. Replaces any failures still pending.
    public func failNextAPIRequests(count: Int, status: Int = 500) {
        faults.api = count > 0 ? Faults.Countdown(remaining: count, status: status) : nil
    }

    /// Answers the next `times` requests for any rendition of this photo's image with `status`
    /// and an empty body. Replaces failures still pending for the photo.
    public func failImage(photoID: String, times: Int = 1, status: Int = 500) {
        faults.images[photoID] = times > 0 ? Faults.Countdown(remaining: times, status: status) : nil
    }

    /// For the next `times` requests of this photo's image, declares the full `Content-Length`,
    /// sends only the first half of the bytes, and closes the connection: a download cut short.
    public func truncateImage(photoID: String, times: Int = 1) {
        faults.truncatedImages[photoID] = times > 0 ? times : nil
    }

    /// Holds every image response for `delay` before answering; nil stops delaying.
    public func delayImages(by delay: Duration?) {
        faults.imageDelay = delay
    }

    /// Cancels every pending fault injection and image delay.
    public func clearFaults() {
        faults = Faults()
    }
}

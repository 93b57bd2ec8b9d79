/// A body longer than it should be.
public enum ImageOversize: Sendable, Equatable {
    /// `Content-Length` is the image's true size and the whole image is sent, followed by this
    /// many more bytes; then the connection closes.
    case trailingBytes(Int)
    /// The whole image is sent, but `Content-Length` declares only this many bytes (fewer than
    /// the image); then the connection closes.
    case understatedLength(Int)
    /// A body of this many bytes: the JPEG header, then filler, written as it is made (any size
    /// costs the stub no memory). With `declared`, `Content-Length` matches it; without, it is
    /// sent chunked, with no length at all.
    case enlarged(toBytes: Int, declared: Bool)
}

extension UnsplashStub {
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

    /// For the next `times` requests of this photo's image (any rendition), sends more than it
    /// should, as `oversize` says. Replaces oversizing still pending for the photo.
    public func oversizeImage(photoID: String, _ oversize: ImageOversize, times: Int = 1) {
        faults.oversizedImages[photoID] = times > 0 ? (oversize, times) : nil
    }

    /// Answers each image request (any photo, any rendition) with `status` and an empty body
    /// with probability `rate` (0...1; 1 fails every one), drawn from a generator seeded with
    /// `seed`, after the failures `failImage` set for that photo; until `count` failures were
    /// given (nil: until `clearFaults()` or a rate of 0).
    public func failImageRequests(rate: Double, seed: UInt64 = 0, status: Int = 503, count: Int? = nil) {
        faults.periodicImages =
            rate > 0
            ? PeriodicFailure(
                pattern: .probability(min(rate, 1), Determinism.generator("image-failures:\(seed)")),
                status: status, retryAfter: nil, failuresLeft: count)
            : nil
    }

    /// Answers every request for this photo's image (any rendition) with its head at once and
    /// then its body one byte every `interval`, as a failing CDN node or a proxy with a full
    /// buffer does: each byte resets a client's read timeout, so only a deadline or a minimum
    /// rate ends the download. Until `clearFaults()`, or a call with nil.
    public func trickleImage(photoID: String, every interval: Duration? = .seconds(2)) {
        faults.trickledImages[photoID] = interval
    }

    /// Holds every image response for `delay` before answering; nil stops delaying.
    public func delayImages(by delay: Duration?) {
        faults.imageDelay = delay
    }
}

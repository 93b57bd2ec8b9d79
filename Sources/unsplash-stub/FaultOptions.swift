import ArgumentParser
import UnsplashStub

/// The stub's fault switches that make sense for a whole run, for trying a client against a
/// misbehaving Unsplash by hand. Tests use the `UnsplashStub` methods, which offer more.
struct FaultOptions: ParsableArguments {
    @Option(help: "Refill the rate limit every this many seconds (fixed windows); by default it never refills.")
    var rateLimitWindow: Double?

    @Option(help: "Fail every N-th API request (N >= 1) with --fail-status.")
    var failEvery: Int?

    @Option(help: "Fail each API request with this probability (0-1), drawn from --fault-seed.")
    var failRate: Double?

    @Option(help: "The status of injected API failures; 429 and 403 answer 'Rate Limit Exceeded' in plain text.")
    var failStatus = 500

    @Option(help: "The seed of --fail-rate; by default --seed.")
    var faultSeed: UInt64?

    @Option(help: "Fail each image request with this probability (0-1) with 503, drawn from --fault-seed.")
    var failImageRate: Double?

    @Option(help: "Fail each download-tracking request with this probability (0-1) with 503, from --fault-seed.")
    var failTrackingRate: Double?

    @Option(help: "Hold every API answer this many milliseconds.")
    var delayAPI: Int?

    @Option(help: "Hold every image answer this many milliseconds.")
    var delayImages: Int?

    @Option(help: "Send this photo's image one byte every --trickle-interval milliseconds, always (repeatable).")
    var trickleImage: [String] = []

    @Option(help: "See --trickle-image.")
    var trickleInterval = 2_000

    @Option(help: "Answer this page with '200 []' and its usual Link header, once (repeatable).")
    var emptyPage: [Int] = []

    @Option(help: "Answer this page with JSON cut off halfway, once (repeatable).")
    var malformedPage: [Int] = []

    @Option(help: "Serve the first photo of this page without an id, always (repeatable).")
    var photoWithoutIDOnPage: [Int] = []

    @Option(help: "Publish this many new photos at the head after every --head-arrivals-every page requests.")
    var headArrivals: Int?

    @Option(help: "See --head-arrivals.")
    var headArrivalsEvery = 1

    func check() throws {
        if let window = rateLimitWindow, !(window > 0) {
            throw ValidationError("rate-limit-window must be more than 0 seconds, got \(window)")
        }
        if let every = failEvery, every < 1 { throw ValidationError("fail-every must be at least 1, got \(every)") }
        if failEvery != nil && failRate != nil { throw ValidationError("give fail-every or fail-rate, not both") }
        if let rate = failRate, !(0...1).contains(rate) {
            throw ValidationError("fail-rate must be between 0 and 1, got \(rate)")
        }
        for (name, rate) in [("fail-image-rate", failImageRate), ("fail-tracking-rate", failTrackingRate)] {
            if let rate, !(0...1).contains(rate) {
                throw ValidationError("\(name) must be between 0 and 1, got \(rate)")
            }
        }
        if !(100...599).contains(failStatus) {
            throw ValidationError("fail-status must be an HTTP status, got \(failStatus)")
        }
        for (name, value) in [
            ("delay-api", delayAPI), ("delay-images", delayImages), ("trickle-interval", trickleInterval),
        ] {
            if let value, value < 0 { throw ValidationError("\(name) must not be negative, got \(value)") }
        }
        for page in emptyPage + malformedPage + photoWithoutIDOnPage where page < 1 {
            throw ValidationError("pages are numbered from 1, got \(page)")
        }
        if let count = headArrivals, count < 1 {
            throw ValidationError("head-arrivals must be at least 1, got \(count)")
        }
        if headArrivalsEvery < 1 {
            throw ValidationError("head-arrivals-every must be at least 1, got \(headArrivalsEvery)")
        }
    }

    func apply(to stub: UnsplashStub, seed: UInt64) async {
        if let window = rateLimitWindow { await stub.refillRateLimit(every: .milliseconds(Int(window * 1000))) }
        if let every = failEvery { await stub.failAPIRequests(every: every, status: failStatus) }
        if let rate = failRate { await stub.failAPIRequests(rate: rate, seed: faultSeed ?? seed, status: failStatus) }
        if let rate = failImageRate { await stub.failImageRequests(rate: rate, seed: faultSeed ?? seed) }
        if let rate = failTrackingRate { await stub.failTrackingRequests(rate: rate, seed: faultSeed ?? seed) }
        if let delay = delayAPI { await stub.delayAPIRequests(by: .milliseconds(delay)) }
        if let delay = delayImages { await stub.delayImages(by: .milliseconds(delay)) }
        for photoID in trickleImage {
            await stub.trickleImage(photoID: photoID, every: .milliseconds(trickleInterval))
        }
        for page in emptyPage { await stub.serveEmptyPage(page) }
        for page in malformedPage { await stub.serveMalformedJSON(onPage: page) }
        for page in photoWithoutIDOnPage { await stub.damagePhoto(onPage: page, .missingID) }
        if let count = headArrivals {
            await stub.addPhotosWhilePaging(count: count, everyPageRequests: headArrivalsEvery)
        }
    }
}

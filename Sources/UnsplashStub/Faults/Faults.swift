/// How often a fault strikes once set: a number of times, or until `clearFaults()`.
public enum FaultRepetition: Sendable, Equatable {
    case times(Int)
    case always

    public static let once = FaultRepetition.times(1)

    /// Uses up one strike; false when none is left.
    mutating func strike() -> Bool {
        switch self {
        case .always:
            return true
        case .times(let count):
            guard count > 0 else { return false }
            self = .times(count - 1)
            return true
        }
    }

    var isSpent: Bool { self == .times(0) }
}

/// Failures tests have asked for, consumed as requests arrive. Every one is deterministic: it
/// depends only on what was set and on the order in which requests arrive.
struct Faults: Sendable {
    struct Countdown: Sendable {
        var remaining: Int
        let status: Int
        var retryAfter: Int? = nil
    }

    // api.unsplash.com
    var api: Countdown?
    var periodicAPI: PeriodicFailure?
    var apiRedirects: Redirect?
    var apiDelay: Duration?
    /// Download-tracking requests (`/photos/:id/download`) only, before `periodicAPI`.
    var periodicTracking: PeriodicFailure?

    // The feed's pages, by page number.
    var emptyPages: [Int: FaultRepetition] = [:]
    var malformedPages: [Int: FaultRepetition] = [:]
    var damagedPhotos: [Int: [DamagedSlot]] = [:]
    var headArrivals: HeadArrivals?

    // images.unsplash.com, by image name.
    var images: [String: Countdown] = [:]
    var truncatedImages: [String: Int] = [:]
    var oversizedImages: [String: (oversize: ImageOversize, remaining: Int)] = [:]
    var imageRedirects: [String: Redirect] = [:]
    var imageDelay: Duration?
    /// Images sent one byte at a time, this far apart.
    var trickledImages: [String: Duration] = [:]
    /// Any image, after the failures set for that image.
    var periodicImages: PeriodicFailure?

    /// The status to fail the next API request with, if one is due.
    mutating func nextAPIFailure() -> Countdown? {
        if let failure = Self.consume(&api) { return failure }
        return periodicAPI?.next()
    }

    mutating func nextImageFailure(name: String) -> Int? {
        if let status = Self.consume(&images[name])?.status { return status }
        return periodicImages?.next()?.status
    }

    /// The status to fail the next download-tracking request with, if one is due.
    mutating func nextTrackingFailure() -> Countdown? {
        periodicTracking?.next()
    }

    mutating func nextImageTruncation(name: String) -> Bool {
        guard let remaining = truncatedImages[name], remaining > 0 else { return false }
        truncatedImages[name] = remaining > 1 ? remaining - 1 : nil
        return true
    }

    mutating func nextImageOversize(name: String) -> ImageOversize? {
        guard let (oversize, remaining) = oversizedImages[name], remaining > 0 else { return nil }
        oversizedImages[name] = remaining > 1 ? (oversize, remaining - 1) : nil
        return oversize
    }

    mutating func nextAPIRedirect() -> Redirect? {
        Self.consume(&apiRedirects)
    }

    mutating func nextImageRedirect(name: String) -> Redirect? {
        Self.consume(&imageRedirects[name])
    }

    /// True when a page fault keyed by `page` is due, using one of its strikes.
    static func strike(_ faults: inout [Int: FaultRepetition], page: Int) -> Bool {
        guard var repetition = faults[page], repetition.strike() else { return false }
        faults[page] = repetition.isSpent ? nil : repetition
        return true
    }

    private static func consume(_ countdown: inout Countdown?) -> Countdown? {
        guard let current = countdown, current.remaining > 0 else { return nil }
        countdown =
            current.remaining > 1
            ? Countdown(remaining: current.remaining - 1, status: current.status, retryAfter: current.retryAfter) : nil
        return current
    }

    private static func consume(_ redirect: inout Redirect?) -> Redirect? {
        guard let current = redirect, current.remaining > 0 else { return nil }
        redirect =
            current.remaining > 1
            ? Redirect(target: current.target, status: current.status, remaining: current.remaining - 1) : nil
        return current
    }
}

extension UnsplashStub {
    /// Cancels every pending fault injection and delay (not the rate limit or its window).
    public func clearFaults() {
        faults = Faults()
    }
}

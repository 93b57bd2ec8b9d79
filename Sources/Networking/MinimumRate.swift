/// The slowest a body may arrive: at least ``bytesPerSecond`` on average over every span of
/// ``window``, once a whole window has passed since its head arrived.
///
/// A deadline that fits any size: a large image from an honest host takes as long as it needs,
/// and a host that trickles (one byte every few seconds, which resets a read timeout forever) is
/// cut off one window after it slowed down. A body smaller than one window's worth must simply
/// arrive within the window.
public struct MinimumRate: Sendable, Hashable, CustomStringConvertible {
    public var bytesPerSecond: Int64
    public var window: Duration

    /// At least 1 byte a second, over at least 1 millisecond.
    public init(bytesPerSecond: Int64, window: Duration) {
        self.bytesPerSecond = max(1, bytesPerSecond)
        self.window = max(.milliseconds(1), window)
    }

    /// 32 KiB/s over 30 s: about 1 MiB in any 30 s. A healthy CDN sends an image of a few
    /// hundred KB in well under a second; a host that cannot keep up 32 KiB/s for half a minute is
    /// failing, and the image is better tried again later.
    public static let standard = MinimumRate(bytesPerSecond: 32 << 10, window: .seconds(30))

    /// The bytes a window must hold.
    public var bytesPerWindow: Int64 {
        Int64((Double(bytesPerSecond) * window.inSeconds).rounded(.up))
    }

    /// `32 KiB/s over 30 s`.
    public var description: String {
        "\(ByteRate.text(Double(bytesPerSecond))) over \(ByteRate.seconds(window.inSeconds))"
    }
}

/// How far an answer had got when it missed its deadline or its ``MinimumRate``: what a log
/// needs to say how slow the host was.
public struct Shortfall: Sendable, Equatable, CustomStringConvertible {
    /// Body bytes received in the span measured.
    public var bytes: Int64
    /// The span measured, in seconds: the whole request for a deadline, the last window (or a
    /// little more) for a minimum rate.
    public var seconds: Double
    /// The rate the body had to keep, when that is what it missed.
    public var required: MinimumRate?
    /// The deadline, when that is what it missed.
    public var deadline: Duration?

    public init(bytes: Int64, seconds: Double, required: MinimumRate? = nil, deadline: Duration? = nil) {
        self.bytes = bytes
        self.seconds = seconds
        self.required = required
        self.deadline = deadline
    }

    /// The average rate over ``seconds``.
    public var bytesPerSecond: Double {
        seconds > 0 ? Double(bytes) / seconds : 0
    }

    /// `120 bytes in 30.0 s (4 B/s), below the minimum of 32 KiB/s over 30 s`.
    public var description: String {
        let received = "\(bytes) bytes in \(ByteRate.seconds(seconds)) (\(ByteRate.text(bytesPerSecond)))"
        if let required { return "\(received), below the minimum of \(required)" }
        if let deadline { return "\(received), past the deadline of \(ByteRate.seconds(deadline.inSeconds))" }
        return received
    }
}

/// Checks a body against a ``MinimumRate`` as its chunks arrive.
///
/// It keeps a few dozen samples of the running total (one per 1/32 of the window at most), so it
/// costs the same for a body of any size. The bytes of a window are counted from the last sample
/// at or before the window's start: that can only count a little more than the window held,
/// never less, so an honest host is never cut off for the sampling's sake.
public struct RateWatch: Sendable {
    public let minimum: MinimumRate
    private var samples: [(at: Duration, total: Int64)] = [(.zero, 0)]
    private var total: Int64 = 0

    public init(_ minimum: MinimumRate) {
        self.minimum = minimum
    }

    /// Records `count` bytes that arrived `elapsed` after the head.
    /// - Returns: the shortfall when, at `elapsed`, the last window held less than the minimum.
    public mutating func received(_ count: Int, at elapsed: Duration) -> Shortfall? {
        total += Int64(count)
        let start = elapsed - minimum.window
        while samples.count > 1, samples[1].at <= start {
            samples.removeFirst()
        }
        if let last = samples.last, elapsed - last.at >= minimum.window / 32 {
            samples.append((elapsed, total))
        }
        guard start >= .zero, let base = samples.first else { return nil }
        let bytes = total - base.total
        guard bytes < minimum.bytesPerWindow else { return nil }
        return Shortfall(bytes: bytes, seconds: (elapsed - base.at).inSeconds, required: minimum)
    }
}

/// Rates and spans as a person reads them.
enum ByteRate {
    /// `512 B/s`, `32 KiB/s`, `1.5 MiB/s`.
    static func text(_ bytesPerSecond: Double) -> String {
        let units = ["B/s", "KiB/s", "MiB/s", "GiB/s"]
        var value = bytesPerSecond
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let rounded = (value * 10).rounded() / 10
        let number = rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
        return "\(number) \(units[unit])"
    }

    /// `30 s`, `0.5 s`.
    static func seconds(_ seconds: Double) -> String {
        let rounded = (seconds * 10).rounded() / 10
        return rounded == rounded.rounded() ? "\(Int(rounded)) s" : "\(rounded) s"
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

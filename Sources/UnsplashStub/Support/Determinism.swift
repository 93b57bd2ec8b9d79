import Crypto
import Foundation

/// Everything the stub invents is derived from (seed, a name) through SHA-256, so that two
/// stubs with the same seed serve byte-identical feeds and images, run after run.
enum Determinism {
    static func digest(_ name: String) -> SHA256.Digest {
        SHA256.hash(data: Data(name.utf8))
    }

    /// A generator whose whole sequence is fixed by `name`.
    static func generator(_ name: String) -> SplitMix64 {
        SplitMix64(seed: digest(name).prefix(8).reduce(0) { $0 << 8 | UInt64($1) })
    }

    /// An 11-character id over `[A-Za-z0-9_-]`, the alphabet and length of Unsplash's ids.
    static func identifier(_ name: String) -> String {
        String(base64URL(Array(digest(name))).prefix(11))
    }

    /// An opaque token shaped like Unsplash's `ixid` query values.
    static func token(_ name: String, length: Int) -> String {
        String(base64URL(Array(digest(name))).prefix(length))
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// SplitMix64: tiny, fast, and identical on every platform (unlike `SystemRandomNumberGenerator`).
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// An element chosen by this generator; `Array.randomElement(using:)` is not guaranteed
    /// to consume the generator the same way across standard library versions.
    mutating func pick<T>(_ elements: [T]) -> T {
        elements[Int(next() % UInt64(elements.count))]
    }

    mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.count))
    }

    /// A value in [0, 1).
    mutating func unit() -> Double {
        Double(next() >> 11) / Double(1 << 53)
    }
}

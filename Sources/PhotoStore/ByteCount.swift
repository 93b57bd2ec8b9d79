import Foundation

/// A number of bytes for people to read, `69 KB` or `1.5 MB`: the text of
/// `ByteCountFormatter.string(fromByteCount:countStyle: .file)` in English, made without it.
///
/// That formatter goes through ICU's `NumberFormatter`, and its first use took about 1.5 ms of a
/// `photosync query`, as long as the lookup itself. This makes the same text with integer
/// arithmetic (a test compares the two): decimal units (1 KB = 1,000 bytes), whole KB, MB to
/// one decimal and larger units to two, rounded half to even, no trailing zeros. Unlike the
/// formatter it does not follow the locale, so every command and page writes sizes alike, and
/// it writes nothing as `0 bytes`, not the formatter's `Zero KB` (which read as a typo in
/// `status` and the demo's summary).
public enum ByteCount {
    private static let units: [(name: String, bytes: Int64, decimals: Int)] = [
        ("KB", 1_000, 0),
        ("MB", 1_000_000, 1),
        ("GB", 1_000_000_000, 2),
        ("TB", 1_000_000_000_000, 2),
        ("PB", 1_000_000_000_000_000, 2),
        ("EB", 1_000_000_000_000_000_000, 2),
    ]

    /// `0 bytes`, `1 byte`, `999 bytes`, `69 KB`, `1.5 MB`, `2.25 GB`; negative counts, which
    /// photosync never has, go to `ByteCountFormatter`.
    public static func text(_ bytes: Int64) -> String {
        switch bytes {
        case ..<0: return ByteCountFormatter.string(fromByteCount: bytes, countStyle: .file)
        case 0: return "0 bytes"
        case 1: return "1 byte"
        case ..<1_000: return "\(bytes) bytes"
        default: break
        }
        let unit = units.last { bytes >= $0.bytes } ?? units[0]
        var scale: Int64 = 1
        for _ in 0..<unit.decimals { scale *= 10 }
        // The count in steps of the last decimal shown, rounded half to even as ICU does.
        let step = unit.bytes / scale
        var steps = bytes / step
        let remainder = bytes % step
        if remainder * 2 > step || (remainder * 2 == step && steps % 2 == 1) {
            steps += 1
        }
        var text = grouped(steps / scale)
        var fraction = steps % scale
        var digits = unit.decimals
        while digits > 0 && fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        if digits > 0 {
            let fractionText = String(fraction)
            text += "." + String(repeating: "0", count: digits - fractionText.count) + fractionText
        }
        return text + " " + unit.name
    }

    /// `1,000` for 1000: a unit's count reaches four digits when it rounds up, as in `1,000 KB`.
    private static func grouped(_ value: Int64) -> String {
        let digits = Array(String(value))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return text
    }
}

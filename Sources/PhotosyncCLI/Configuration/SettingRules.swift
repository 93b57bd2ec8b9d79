import Foundation
import Logging
import Networking
import PhotoStorePostgres
import PhotoSync
import UnsplashAPI

/// The checks of settings too long to sit in their declaration; each returns the value to keep.
enum SettingRules {
    static func number(in range: ClosedRange<Int>) -> @Sendable (Int) throws(SettingProblem) -> Int {
        { value throws(SettingProblem) in
            guard range.contains(value) else {
                throw SettingProblem("must be between \(range.lowerBound) and \(range.upperBound) (got \(value))")
            }
            return value
        }
    }

    static func apiBase(_ text: String) throws(SettingProblem) -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else { throw SettingProblem("must be an absolute http or https URL (got \(quoted(text)))") }
        // Credentials in the URL would end up in every request log line.
        guard url.user == nil, url.password == nil else {
            throw SettingProblem("must not contain a user name or password")
        }
        // Every request carries the access key: in cleartext only as far as this machine.
        guard Origin.insecurity(of: url) == nil else {
            throw SettingProblem(
                "must use https; plain http is allowed only for loopback addresses such as 127.0.0.1 "
                    + "(got \(quoted(text)))")
        }
        return url
    }

    // The upper bound keeps `Duration.seconds` and the clock's sleep far from overflowing.
    static func pollInterval(_ seconds: Int) throws(SettingProblem) -> Duration {
        guard seconds >= 10 else { throw SettingProblem("must be at least 10 seconds (got \(seconds))") }
        guard seconds <= 86_400 else { throw SettingProblem("must be at most 86400 seconds, a day (got \(seconds))") }
        return .seconds(seconds)
    }

    /// "" (off) or `HOST:PORT`.
    /// A standby's primary: a PostgreSQL URL, completed from libpq's variables as `database` is;
    /// empty for none.
    static func primaryDatabase(_ text: String, environment: [String: String]) throws(SettingProblem)
        -> PostgresLocation?
    {
        guard !text.isEmpty else { return nil }
        guard PostgresLocation.isURL(text) else {
            throw SettingProblem("must be a postgres:// URL (got \(quoted(text)))")
        }
        guard case .postgres(let location) = try DatabaseLocation(parsing: text, environment: environment) else {
            return nil
        }
        return location
    }

    static func listenAddress(_ text: String) throws(SettingProblem) -> ListenAddress? {
        if text.isEmpty { return nil }
        guard let address = ListenAddress(text) else {
            throw SettingProblem(
                "must be HOST:PORT with an IP address or localhost, such as 127.0.0.1:9464 (got \(quoted(text)))")
        }
        return address
    }

    static func logLevel(_ text: String) throws(SettingProblem) -> Logger.Level {
        guard let level = Logger.Level(rawValue: text.lowercased()) else {
            let names = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
            throw SettingProblem("must be one of \(names) (got \(quoted(text)))")
        }
        return level
    }

    /// What `--variant none` says: metadata only.
    static let noVariant = "none"

    /// Each size once, in the order given; `none` alone is the empty list (metadata only).
    static func variants(_ names: [String]) throws(SettingProblem) -> [ImageVariant] {
        let names = names.map { $0.lowercased() }
        if names == [noVariant] { return [] }
        guard !names.isEmpty, !names.contains("") else { throw SettingProblem("must name an image size, or none") }
        var variants: [ImageVariant] = []
        for name in names {
            if name == noVariant { throw SettingProblem("none cannot be combined with image sizes") }
            guard let variant = ImageVariant(rawValue: name) else {
                let names = ImageVariant.allCases.map(\.rawValue).joined(separator: ", ")
                throw SettingProblem("must be one of \(names), or none (got \(quoted(name)))")
            }
            if !variants.contains(variant) { variants.append(variant) }
        }
        return variants
    }

    /// Each source once, in the order given.
    static func sources(_ texts: [String]) throws(SettingProblem) -> [PhotoSource] {
        guard !texts.isEmpty else { throw SettingProblem("must name at least one source") }
        var sources: [PhotoSource] = []
        for text in texts {
            let source: PhotoSource
            do { source = try PhotoSource(parsing: text) } catch { throw SettingProblem(error.description) }
            if !sources.contains(source) { sources.append(source) }
        }
        return sources
    }

    /// Host names compare case-insensitively, so they are kept lowercased.
    static func imageHosts(_ hosts: [String]) throws(SettingProblem) -> [String] {
        guard !hosts.isEmpty else { throw SettingProblem("must name at least one host") }
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: ".-_:[]"))
        return try hosts.map { host throws(SettingProblem) in
            guard !host.isEmpty else { throw SettingProblem("must not contain an empty host name") }
            let problem: String? =
                if host.contains("://") { "without a scheme" } else if host.contains("/") {
                    "without a path"
                } else if !host.unicodeScalars.allSatisfy({ $0.isASCII && allowed.contains($0) }) {
                    "such as images.unsplash.com"
                } else { nil }
            if let problem { throw SettingProblem("must hold host names \(problem) (got \(quoted(host)))") }
            return host.lowercased()
        }
    }

    /// The largest size a size setting takes: 1,000 TB, far beyond any disk photosync fills,
    /// and far from overflowing a 64-bit count.
    static let maxByteSize: Int64 = 1_000_000_000_000_000

    /// A size: plain bytes, or a number with a unit, decimal (`KB`, `MB`, `GB`, `TB`) or binary
    /// (`KiB`, `MiB`, `GiB`, `TiB`), in any case, with or without a space: `50GB`, `500 MiB`.
    static func byteSize(_ text: String) throws(SettingProblem) -> Int64 {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let digits = trimmed.prefix { $0.isASCII && $0.isNumber }
        let unit = trimmed.dropFirst(digits.count).trimmingCharacters(in: .whitespaces).lowercased()
        let multipliers: [String: Int64] = [
            "": 1, "b": 1, "kb": 1_000, "mb": 1_000_000, "gb": 1_000_000_000, "tb": 1_000_000_000_000,
            "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
        ]
        guard !digits.isEmpty, let multiplier = multipliers[unit] else {
            throw SettingProblem(
                "must be a size such as 50GB, 500MiB or a number of bytes (got \(quoted(text)))")
        }
        guard let number = Int64(digits), number <= maxByteSize / multiplier, number * multiplier <= maxByteSize
        else { throw SettingProblem("must be at most 1000TB (got \(quoted(text)))") }
        return number * multiplier
    }

    /// "" (none) or a size of at least 1 MB: a smaller budget could not hold one photo.
    static func storageLimit(_ text: String) throws(SettingProblem) -> Int64? {
        if text.trimmingCharacters(in: .whitespaces).isEmpty { return nil }
        let bytes = try byteSize(text)
        guard bytes >= 1_000_000 else { throw SettingProblem("must be at least 1MB (got \(quoted(text)))") }
        return bytes
    }

    /// "" (1 GiB, or 5% of the disk when smaller) or a size; 0 never pauses.
    static func minFreeDisk(_ text: String) throws(SettingProblem) -> FreeDiskReserve {
        if text.trimmingCharacters(in: .whitespaces).isEmpty { return .standard }
        return .bytes(try byteSize(text))
    }

    /// The slowest an image may arrive: `RATE/s over WINDOW`, such as `32KiB/s over 30s`; the
    /// window may be left out (30 s). A rate of 1 B/s to 100 MiB/s, a window of 1 to 600 seconds:
    /// a faster minimum would fail most hosts, a longer window would let a trickle hold a
    /// download slot for ten minutes.
    static func imageMinimumRate(_ text: String) throws(SettingProblem) -> MinimumRate {
        let parts = text.lowercased().components(separatedBy: "over")
        let rate = parts[0].trimmingCharacters(in: .whitespaces)
        guard parts.count <= 2, rate.hasSuffix("/s") else {
            throw SettingProblem("must be a rate and a window such as 32KiB/s over 30s (got \(quoted(text)))")
        }
        let bytesPerSecond = try byteSize(String(rate.dropLast(2)))
        guard (1...(100 << 20)).contains(bytesPerSecond) else {
            throw SettingProblem("must be a rate of 1B/s to 100MiB/s (got \(quoted(text)))")
        }
        var window = 30
        if parts.count == 2 {
            let seconds = parts[1].trimmingCharacters(in: .whitespaces)
            guard let number = Int(seconds.hasSuffix("s") ? String(seconds.dropLast()) : seconds),
                (1...600).contains(number)
            else { throw SettingProblem("must have a window of 1 to 600 seconds, such as 30s (got \(quoted(text)))") }
            window = number
        }
        return MinimumRate(bytesPerSecond: bytesPerSecond, window: .seconds(window))
    }

    /// "1-30", for a summary.
    static func clientKeys(_ keys: [String]) throws(SettingProblem) -> [String] {
        for key in keys where key.isEmpty || key.contains(where: { $0.isWhitespace || $0 == "," }) {
            throw SettingProblem("must hold keys without spaces or commas (got \(quoted(key)))")
        }
        return keys
    }

    static func mirrorImageURLs(_ text: String) throws(SettingProblem) -> String {
        guard ["unsplash", "local"].contains(text) else {
            throw SettingProblem("must be unsplash or local (got \(quoted(text)))")
        }
        return text
    }

    static func span(_ range: ClosedRange<Int>) -> String { "\(range.lowerBound)-\(range.upperBound)" }

    /// "a, b or c".
    static func sentence(_ items: [String]) -> String {
        guard let last = items.last, items.count > 1 else { return items.joined() }
        return items.dropLast().joined(separator: ", ") + " or " + last
    }

    /// `text` in double quotes, with quotes, backslashes and control characters escaped (as
    /// Swift's own literals escape them) so a message stays on one line.
    static func quoted(_ text: String) -> String { text.debugDescription }
}

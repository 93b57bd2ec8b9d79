import Foundation

/// Where plain http may be used: only to a loopback address, so a local stub works but nothing
/// (an access key, an image) travels the network unencrypted. Every other URL must be https.
///
/// The one rule for API base URLs and image hosts alike.
public enum CleartextPolicy {
    /// True for `https` URLs, and for `http` URLs whose host is a loopback address.
    public static func permits(_ url: URL) -> Bool {
        switch url.scheme?.lowercased() {
        case "https": true
        case "http": url.host.map(isLoopback) ?? false
        default: false
        }
    }

    /// `localhost`, `::1` (bracketed or not) and `127.0.0.0/8` in dotted-quad form. A name that
    /// merely starts with `127.` (`127.0.0.1.example.com`) is not loopback.
    public static func isLoopback(_ host: String) -> Bool {
        let host = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if host == "localhost" || host == "::1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }
}

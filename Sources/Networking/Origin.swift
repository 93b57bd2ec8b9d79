import Foundation

/// A URL's scheme, host and port: the unit a credential is bound to (RFC 6454).
///
/// Hosts compare case-insensitively and a missing port is the scheme's default, so
/// `https://API.example.com/x` and `https://api.example.com:443/y` share one origin.
public struct Origin: Hashable, Sendable, CustomStringConvertible {
    public let scheme: String
    public let host: String
    public let port: Int

    /// The origin of `url`; nil unless it is an absolute http(s) URL with a host.
    public init?(_ url: URL) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: true),
            let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = components.host?.lowercased(), !host.isEmpty
        else { return nil }
        self.scheme = scheme
        self.host = host
        self.port = components.port ?? (scheme == "https" ? 443 : 80)
    }

    public var description: String {
        let defaultPort = scheme == "https" ? 443 : 80
        let bracketed = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return "\(scheme)://\(bracketed)" + (port == defaultPort ? "" : ":\(port)")
    }

    /// Whether `host` is a loopback address or `localhost`: the only hosts plain http may reach,
    /// since nothing sent to them crosses a network.
    public static func isLoopback(_ host: String) -> Bool {
        let host = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if host == "localhost" || host == "::1" { return true }
        let octets = host.split(separator: ".", omittingEmptySubsequences: false)
        return octets.count == 4 && octets[0] == "127" && octets.allSatisfy { UInt8($0) != nil }
    }

    /// Why `url` may not carry anything private, or nil when it is https, or plain http to a
    /// loopback host.
    public static func insecurity(of url: URL) -> String? {
        guard let origin = Origin(url) else { return "\(Redaction.string(for: url)) is not an absolute http(s) URL" }
        if origin.scheme == "https" || isLoopback(origin.host) { return nil }
        return "plain http to \(origin.host), which is not a loopback address, would travel unencrypted"
    }
}

/// A secret header (such as `Authorization: Client-ID ...`) that may be sent to one origin only.
///
/// ``Provider`` attaches it itself, just before each request and each redirect hop leaves, and
/// only when that URL is on ``origin``; a request or hop to any other origin is refused with
/// ``NetworkError/foreignOrigin(url:allowed:)`` or ``NetworkError/redirectRefused(from:to:reason:)``
/// and never sent. This is the one place that decides where the key may go.
public struct Credential: Sendable {
    public var origin: Origin
    public var headerName: String
    public var headerValue: String

    public init(origin: Origin, headerName: String = "Authorization", headerValue: String) {
        self.origin = origin
        self.headerName = headerName
        self.headerValue = headerValue
    }
}

extension Credential: CustomStringConvertible {
    /// The value is a secret: never printed.
    public var description: String { "Credential(\(headerName) for \(origin))" }
}

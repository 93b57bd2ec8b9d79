import Foundation

/// The proxies the environment asks for, read the way curl reads them:
/// - `https_proxy` / `HTTPS_PROXY` for https URLs;
/// - `http_proxy` for http URLs (lower case only: a CGI server sets `HTTP_PROXY` from a request's
///   `Proxy:` header, so curl and most tools ignore the upper-case name);
/// - `all_proxy` / `ALL_PROXY` for either, when the specific one is unset;
/// - `no_proxy` / `NO_PROXY`: comma-separated hosts or domain suffixes reached directly
///   (`example.com` also covers `api.example.com`; `*` covers everything).
///
/// A proxy is `[http://][user:password@]host[:port]` (port 1080 when omitted, as in curl), or
/// `socks5://host[:port]`.
public struct ProxySettings: Sendable, Equatable {
    public struct Proxy: Sendable, Hashable {
        public enum Kind: Sendable, Hashable { case http, socks5 }
        public var kind: Kind
        public var host: String
        public var port: Int
        /// `user:password`, sent as `Proxy-Authorization: Basic`; never printed.
        public var credentials: String?

        public init(kind: Kind = .http, host: String, port: Int, credentials: String? = nil) {
            self.kind = kind
            self.host = host
            self.port = port
            self.credentials = credentials
        }
    }

    public var http: Proxy?
    public var https: Proxy?
    public var noProxy: [String]

    public init(http: Proxy? = nil, https: Proxy? = nil, noProxy: [String] = []) {
        self.http = http
        self.https = https
        self.noProxy = noProxy
    }

    /// The proxies `environment` names.
    /// - Throws: ``ProxySettingsError`` naming the variable whose value is not a proxy URL.
    public init(environment: [String: String]) throws(ProxySettingsError) {
        func value(_ names: String...) -> (name: String, value: String)? {
            for name in names {
                if let value = environment[name]?.trimmingCharacters(in: .whitespaces), !value.isEmpty {
                    return (name, value)
                }
            }
            return nil
        }
        let all = try value("all_proxy", "ALL_PROXY").map(Self.parse)
        http = try value("http_proxy").map(Self.parse) ?? all
        https = try value("https_proxy", "HTTPS_PROXY").map(Self.parse) ?? all
        noProxy =
            value("no_proxy", "NO_PROXY")?.value
            .split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty } ?? []
    }

    /// The proxy to reach `url` through, or nil to connect directly.
    public func proxy(for url: URL) -> Proxy? {
        guard let origin = Origin(url) else { return nil }
        let proxy = origin.scheme == "https" ? https : http
        guard let proxy, !bypasses(origin.host) else { return nil }
        return proxy
    }

    private func bypasses(_ host: String) -> Bool {
        let host = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return noProxy.contains { entry in
            if entry == "*" { return true }
            // A port in the entry ("example.com:8080") is not compared: the host decides.
            var suffix =
                entry.hasPrefix("[")
                ? String(entry.dropFirst().prefix { $0 != "]" }) : String(entry.split(separator: ":").first ?? "")
            if suffix.hasPrefix(".") { suffix.removeFirst() }
            return host == suffix || host.hasSuffix("." + suffix)
        }
    }

    private static func parse(_ variable: (name: String, value: String)) throws(ProxySettingsError) -> Proxy {
        let text = variable.value.contains("://") ? variable.value : "http://" + variable.value
        guard let components = URLComponents(string: text), let host = components.host, !host.isEmpty,
            // A proxy is a host and a port: a path, query or fragment is a mistyped value, such
            // as `http//user:pw@host` (read as host `http` and path `//user:pw@host`).
            ["", "/"].contains(components.percentEncodedPath), components.percentEncodedQuery == nil,
            components.percentEncodedFragment == nil
        else {
            throw .invalid(variable: variable.name, reason: "not a proxy URL")
        }
        let kind: Proxy.Kind
        switch components.scheme?.lowercased() {
        case "http": kind = .http
        case "socks5", "socks5h": kind = .socks5
        case let other:
            throw .invalid(
                variable: variable.name,
                reason: "proxy scheme \(other ?? "") is not supported (use http:// or socks5://)")
        }
        let credentials = components.percentEncodedUser.map { user in
            let decodedUser = user.removingPercentEncoding ?? user
            let password = components.percentEncodedPassword.map { $0.removingPercentEncoding ?? $0 } ?? ""
            return "\(decodedUser):\(password)"
        }
        return Proxy(kind: kind, host: host, port: components.port ?? 1080, credentials: credentials)
    }
}

/// A proxy variable that cannot be used. The message names the variable, never its value (it
/// may hold a password).
public enum ProxySettingsError: Error, LocalizedError, Equatable {
    case invalid(variable: String, reason: String)

    public var errorDescription: String? {
        switch self {
        case .invalid(let variable, let reason): "the environment variable \(variable) is unusable: \(reason)"
        }
    }
}

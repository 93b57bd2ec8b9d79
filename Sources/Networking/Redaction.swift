import Foundation

/// Hides secrets before a URL or a header reaches a log line or an error message.
public enum Redaction {
    /// What replaces a secret.
    public static let placeholder = "<redacted>"

    /// Query parameters whose values are credentials.
    public static let secretQueryNames: Set<String> = ["client_id", "client_secret", "access_token", "code", "token"]

    /// Header fields whose values are credentials.
    public static let secretHeaderNames: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie"]

    /// `url` as text, with secret query values and any user info replaced by ``placeholder``.
    public static func string(for url: URL) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            return placeholder
        }
        if components.user != nil || components.password != nil {
            components.user = nil
            components.password = nil
        }
        // Rebuilt as text: URLComponents traps when handed the placeholder's `<` and `>`.
        let query = components.percentEncodedQuery
        components.percentEncodedQuery = nil
        guard let base = components.string else { return placeholder }
        guard let query else { return base }
        let redacted = query.split(separator: "&", omittingEmptySubsequences: false).map { pair in
            let name = pair.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            let decodedName = name.removingPercentEncoding ?? name
            return secretQueryNames.contains(decodedName.lowercased()) && pair.contains("=")
                ? "\(name)=\(placeholder)" : String(pair)
        }
        return base + "?" + redacted.joined(separator: "&")
    }

    /// `headers` with the values of ``secretHeaderNames`` replaced by ``placeholder``.
    public static func headers(_ headers: [String: String]) -> [String: String] {
        headers.reduce(into: [:]) { result, field in
            result[field.key] = secretHeaderNames.contains(field.key.lowercased()) ? placeholder : field.value
        }
    }
}

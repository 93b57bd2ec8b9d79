import Foundation

/// Which redirects ``Provider`` follows for a request: at most ``maxHops`` hops, each one checked
/// by ``refusal`` before it is sent.
///
/// A request that carries a ``Credential`` is in addition never redirected off the credential's
/// origin, whatever the policy says. On a hop to another origin, `Authorization`, `Cookie` and the
/// other ``Redaction/secretHeaderNames`` are dropped.
public struct RedirectPolicy: Sendable {
    /// The most hops to follow; one more is ``NetworkError/tooManyRedirects(url:limit:)``.
    public var maxHops: Int
    /// Why the hop to `target` may not be followed, or nil to follow it.
    public var refusal: @Sendable (_ target: URL) -> String?

    public init(maxHops: Int = 5, refusal: @escaping @Sendable (_ target: URL) -> String?) {
        self.maxHops = max(0, maxHops)
        self.refusal = refusal
    }

    /// Follows nothing: a 3xx answer fails the request.
    public static let never = RedirectPolicy(maxHops: 0) { _ in nil }

    /// Follows hops within `origin` only.
    public static func sameOrigin(as origin: Origin?, maxHops: Int = 5) -> RedirectPolicy {
        RedirectPolicy(maxHops: maxHops) { target in
            guard let origin, Origin(target) != origin else { return nil }
            return "it leaves \(origin)"
        }
    }

    /// Statuses that redirect with a `Location` (RFC 9110, 15.4); 304 and 300 do not.
    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]
}

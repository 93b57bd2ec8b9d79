import Foundation
import Networking

/// Decides whether an image URL may be fetched: an allowed host, over https; plain http only to
/// a loopback address, so a local stub works but nothing travels the network unencrypted.
/// Every redirect hop of an image download is held to the same rule (``redirects``).
struct ImageHostPolicy: Sendable {
    var allowedHosts: Set<String>
    /// The most redirect hops an image download follows.
    var maxRedirects = 5

    enum Refusal: Error, CustomStringConvertible {
        case malformed(String)
        case hostNotAllowed(String)
        case insecure(String)

        var description: String {
            switch self {
            case .malformed(let url): "not a valid image URL: \(url)"
            case .hostNotAllowed(let host): "image host \(host) is not in the allowed hosts"
            case .insecure(let url): "refusing plain http for a non-loopback image URL: \(url)"
            }
        }
    }

    func check(_ text: String) -> Result<URL, Refusal> {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(),
            !host.isEmpty
        else { return .failure(.malformed(text)) }
        // An allowed entry names a host, or a host and port ("127.0.0.1:8080").
        let names = [host, Self.bare(host)] + (url.port.map { [host + ":\($0)", Self.bare(host) + ":\($0)"] } ?? [])
        guard names.contains(where: allowedHosts.contains) else {
            return .failure(.hostNotAllowed(host))
        }
        switch scheme {
        case "https": return .success(url)
        case "http" where Origin.isLoopback(host): return .success(url)
        default: return .failure(.insecure(Redaction.string(for: url)))
        }
    }

    /// Image redirects: at most ``maxRedirects`` hops, each one allowed by ``check(_:)``.
    var redirects: RedirectPolicy {
        RedirectPolicy(maxHops: maxRedirects) { [self] target in
            if case .failure(let refusal) = check(target.absoluteString) { return refusal.description }
            return nil
        }
    }

    private static func bare(_ host: String) -> String {
        host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
    }
}

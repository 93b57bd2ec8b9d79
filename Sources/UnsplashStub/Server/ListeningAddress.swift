import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IP literal and port to listen on. Host names are refused rather than resolved: the
/// stub must listen exactly where its `baseURL` says, and `localhost` may mean ::1 or 127.0.0.1.
struct ListeningAddress: Sendable, CustomStringConvertible {
    let host: String
    let port: UInt16
    private let isIPv6: Bool

    init?(host: String, port: UInt16) {
        self.host = host
        self.port = port
        var ipv4 = in_addr()
        var ipv6 = in6_addr()
        if inet_pton(AF_INET, host, &ipv4) == 1 {
            isIPv6 = false
        } else if inet_pton(AF_INET6, host, &ipv6) == 1 {
            isIPv6 = true
        } else {
            return nil
        }
    }

    /// `http://HOST:PORT`, with an IPv6 host in brackets.
    func url(port: UInt16) -> URL {
        URL(string: "http://\(isIPv6 ? "[\(host)]" : host):\(port)")!
    }

    var description: String {
        isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}

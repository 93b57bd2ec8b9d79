import FlyingSocks
import Foundation

/// An IP literal and port to listen on. Host names are refused rather than resolved: the
/// stub must listen exactly where its `baseURL` says, and `localhost` may mean ::1 or 127.0.0.1.
struct ListeningAddress: Sendable, CustomStringConvertible {
    let host: String
    let port: UInt16
    private let isIPv6: Bool

    init?(host: String, port: UInt16) {
        self.host = host
        self.port = port
        if (try? sockaddr_in.inet(ip4: host, port: port)) != nil {
            isIPv6 = false
        } else if (try? sockaddr_in6.inet6(ip6: host, port: port)) != nil {
            isIPv6 = true
        } else {
            return nil
        }
    }

    func socketAddress() throws -> any SocketAddress {
        isIPv6 ? try sockaddr_in6.inet6(ip6: host, port: port) : try sockaddr_in.inet(ip4: host, port: port)
    }

    /// `http://HOST:PORT`, with an IPv6 host in brackets.
    func url(port: UInt16) -> URL {
        URL(string: "http://\(isIPv6 ? "[\(host)]" : host):\(port)")!
    }

    var description: String {
        isIPv6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}

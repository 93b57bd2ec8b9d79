import Foundation

/// Another origin on loopback, unrelated to the stub: it answers every request `200` with a
/// short plain-text body and records it, headers included. Point redirects at it to check that
/// a client does not follow them, or does not carry the access key across origins.
///
/// A different port is a different origin; a different loopback address such as `127.0.0.2`
/// is also a different host, for clients whose allowlists name hosts without ports.
public actor ForeignOrigin {
    /// The IP literal it listens on.
    public nonisolated let host: String
    private var listener: HTTPListener?
    private var received: [RecordedRequest] = []

    public init(host: String = "127.0.0.1") {
        self.host = host
    }

    /// Listens on `host` and an ephemeral port; returns once connections are accepted.
    /// - Throws: `UnsplashStubError.invalidConfiguration` for a host that is not an IP literal,
    ///   `.alreadyStarted` if running, `.cannotListen` if the socket cannot be bound.
    public func start() async throws {
        guard listener == nil else { throw UnsplashStubError.alreadyStarted }
        guard let address = ListeningAddress(host: host, port: 0) else {
            throw UnsplashStubError.invalidConfiguration("host must be an IPv4 or IPv6 address, got '\(host)'")
        }
        listener = try await HTTPListener.start(on: address) { [self] request in
            await answer(request)
        }
    }

    /// Closes the socket and every connection. Safe to call when not running.
    public func stop() async {
        guard let listener else { return }
        self.listener = nil
        await listener.stop()
    }

    /// `http://HOST:PORT` with the bound port (0 before `start()`).
    public var baseURL: URL {
        ListeningAddress(host: host, port: 0)?.url(port: listener?.port ?? 0)
            ?? URL(string: "http://\(host):\(listener?.port ?? 0)")!
    }

    /// Every request received, oldest first, with its headers verbatim (kind `.other`).
    public func requests() -> [RecordedRequest] {
        received
    }

    /// The requests that carried a credential: an `Authorization` header or a `client_id`
    /// query parameter. Empty is what a test of a careful client expects.
    public func requestsCarryingCredentials() -> [RecordedRequest] {
        received.filter { $0.header("Authorization") != nil || $0.queryValue("client_id") != nil }
    }

    private func answer(_ request: StubRequest) -> StubResponse {
        let response = StubResponse.text(200, "served by a foreign origin")
        received.append(request.recorded(kind: .other, status: response.status))
        return response
    }
}

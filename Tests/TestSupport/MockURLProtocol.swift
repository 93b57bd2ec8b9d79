import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Intercepts the real `URLSession` path, for tests of what actually leaves the process.
///
/// Install it through ``session()`` (`URLSessionConfiguration.protocolClasses`): on Linux
/// `URLProtocol.registerClass` does not reliably take effect. The handler is static, so suites that
/// use it must be `.serialized` and share one lock: use ``withHandler(_:_:)``.
///
/// Data tasks only: on Linux, `URLSession.download(for:)` through a custom protocol traps inside
/// FoundationNetworking (it expects a file the protocol never writes), so the download path is
/// tested against the stub server on loopback instead.
public final class MockURLProtocol: URLProtocol {
    public typealias Handler = @Sendable (URLRequest, Data?) throws -> (HTTPURLResponse, Data)

    nonisolated(unsafe) private static var handler: Handler?
    private static let lock = AsyncLock()

    /// A session whose every request is answered by the current handler.
    public static func session() -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [MockURLProtocol.self]
        return URLSession(configuration: configuration)
    }

    /// Runs `body` with `handler` answering requests; one test at a time across the process.
    public static func withHandler<T>(_ handler: @escaping Handler, _ body: () async throws -> T) async rethrows -> T {
        await lock.acquire()
        self.handler = handler
        defer {
            self.handler = nil
            lock.release()
        }
        return try await body()
    }

    override public class func canInit(with request: URLRequest) -> Bool { true }
    override public class func canonicalRequest(for request: URLRequest) -> URLRequest { request }

    override public func startLoading() {
        guard let handler = Self.handler else {
            client?.urlProtocol(self, didFailWithError: URLError(.unknown))
            return
        }
        do {
            let (response, data) = try handler(request, Self.body(of: request))
            client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
            client?.urlProtocol(self, didLoad: data)
            client?.urlProtocolDidFinishLoading(self)
        } catch {
            client?.urlProtocol(self, didFailWithError: error)
        }
    }

    override public func stopLoading() {}

    /// The body as sent: URLSession hands protocols a stream rather than `httpBody`.
    private static func body(of request: URLRequest) -> Data? {
        if let body = request.httpBody { return body }
        guard let stream = request.httpBodyStream else { return nil }
        stream.open()
        defer { stream.close() }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while stream.hasBytesAvailable {
            let count = stream.read(&buffer, maxLength: buffer.count)
            guard count > 0 else { break }
            data.append(buffer, count: count)
        }
        return data
    }
}

/// A lock that suspends instead of blocking a thread while it waits.
actor AsyncLock {
    private var locked = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        if !locked {
            locked = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    nonisolated func release() {
        Task { await self.handOver() }
    }

    private func handOver() {
        if waiters.isEmpty {
            locked = false
        } else {
            waiters.removeFirst().resume()
        }
    }
}

import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP/1.0 client that does not ask for keep-alive gets its answer and the end of the
/// connection, as RFC 9112 says; one that asks keeps it.
@Suite(.timeLimit(.minutes(5))) struct HTTP10Tests {
    @Test(arguments: [(keepAlive: false, closed: true), (keepAlive: true, closed: false)])
    func anHTTP10ConnectionClosesAfterItsAnswerUnlessItAskedToBeKept(keepAlive: Bool, closed: Bool) async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit([Sample.photo("a", day: 1)], source: "feed")
        try await fixture.serve { client in
            let port = try #require(client.port)
            let request =
                "GET /healthz HTTP/1.0\r\nHost: 127.0.0.1\r\n" + (keepAlive ? "Connection: keep-alive\r\n" : "")
                + "\r\n"
            let (answer, ended) = try await Self.exchange(request, port: port)
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
            #expect(ended == closed, "\(answer)")
        }
    }

    /// Sends `request` on a new connection to `port` and reads until the server closes it or
    /// 10 s pass without a byte (long enough for a busy machine), on a thread of its own (a
    /// blocking read).
    static func exchange(_ request: String, port: Int) async throws -> (answer: String, closed: Bool) {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                defer { close(socket) }
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = in_port_t(UInt16(port).bigEndian)
                address.sin_addr.s_addr = inet_addr("127.0.0.1")
                let connected = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
                guard connected == 0 else {
                    continuation.resume(throwing: POSIXError(.ECONNREFUSED))
                    return
                }
                var timeout = timeval(tv_sec: 10, tv_usec: 0)
                setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                _ = request.utf8CString.withUnsafeBufferPointer { send(socket, $0.baseAddress, $0.count - 1, 0) }
                var answer = Data()
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = recv(socket, &buffer, buffer.count, 0)
                    if count == 0 {
                        continuation.resume(returning: (String(decoding: answer, as: UTF8.self), true))
                        return
                    }
                    if count < 0 {
                        continuation.resume(returning: (String(decoding: answer, as: UTF8.self), false))
                        return
                    }
                    answer.append(contentsOf: buffer[..<count])
                }
            }
        }
    }
}

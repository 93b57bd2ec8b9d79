import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

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
            // A connection kept open is told by 10 s without a byte: long enough on a busy machine.
            let (answer, ended) = try await RawHTTPExchange.send(request, port: UInt16(port), silence: 10)
            #expect(answer.statusCode == 200)
            #expect(ended == closed)
        }
    }
}

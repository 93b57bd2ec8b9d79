import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import PhotoStore
import PhotoStoreSQLite
import TestSupport
import Testing

@testable import Gallery

/// `serve` closes a connection that sends nothing: before its first request, in the middle of
/// one, or after its answer; clients that hold connections open without using them cannot
/// exhaust the server.
@Suite(.timeLimit(.minutes(5))) struct IdleConnectionTests {
    /// Short, so that the test waits little; the server's own is a minute.
    static let idleTimeout = Duration.milliseconds(300)

    /// Nothing at all, and a head whose last line never comes: the client would wait 30 s for
    /// an answer.
    @Test(arguments: ["", "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n"])
    func aConnectionWithoutAWholeRequestIsClosed(sent: String) async throws {
        try await serveWithShortIdleTimeout { port in
            let (received, closed) = try await RawHTTPExchange.sendUnparsed(sent, port: port, silence: 30)
            #expect(closed)
            #expect(received.isEmpty)
        }
    }

    @Test func aKeptConnectionWithoutAnotherRequestIsClosedAfterItsAnswer() async throws {
        try await serveWithShortIdleTimeout { port in
            let (answer, closed) = try await RawHTTPExchange.send(
                "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", port: port, silence: 30)
            #expect(answer.statusCode == 200)
            #expect(closed)
        }
    }

    private func serveWithShortIdleTimeout(_ body: @escaping @Sendable (UInt16) async throws -> Void) async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit([Sample.photo("a", day: 1)], source: "feed")
        let gallery = Gallery(store: try PhotoStore.openExisting(path: fixture.path))
        var logger = Logger(label: "IdleConnectionTests")
        logger.logLevel = .warning
        try await gallery.application(host: "127.0.0.1", port: 0, logger: logger, idleTimeout: Self.idleTimeout)
            .test(.live) { client in
                try await body(UInt16(try #require(client.port)))
            }
    }
}

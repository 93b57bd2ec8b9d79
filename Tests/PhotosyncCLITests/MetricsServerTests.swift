import Foundation
import HummingbirdTesting
import Logging
import Prometheus
import TestSupport
import Testing

@testable import PhotosyncCLI

/// `run --metrics-listen`'s server holds no connection that does not use it: one that sends
/// nothing is closed after the idle timeout, and an HTTP/1.0 scrape after its answer, as
/// `serve`'s are.
@Suite(.timeLimit(.minutes(5))) struct MetricsServerTests {
    func withServer(idleTimeout: Duration, _ body: @escaping @Sendable (UInt16) async throws -> Void) async throws {
        var logger = Logger(label: "MetricsServerTests")
        logger.logLevel = .warning
        var server = MetricsServer(
            address: try #require(ListenAddress("127.0.0.1:0")), registry: PrometheusCollectorRegistry(),
            logger: logger
        ) {}
        server.idleTimeout = idleTimeout
        try await server.application.test(.live) { client in
            try await body(UInt16(try #require(client.port)))
        }
    }

    @Test func aConnectionThatSendsNothingIsClosed() async throws {
        try await withServer(idleTimeout: .milliseconds(300)) { port in
            let (received, closed) = try await RawHTTPExchange.sendUnparsed("", port: port, silence: 30)
            #expect(closed, "the connection was held for 30 s")
            #expect(received.isEmpty)
        }
    }

    @Test func anHTTP10ScrapeIsAnsweredAndClosed() async throws {
        try await withServer(idleTimeout: .seconds(60)) { port in
            let (answer, closed) = try await RawHTTPExchange.send(
                "GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", port: port, silence: 30)
            #expect(answer.statusCode == 200)
            #expect(answer.header("Content-Type")?.hasPrefix("text/plain") == true)
            #expect(closed, "the connection was held for 30 s")
        }
    }
}

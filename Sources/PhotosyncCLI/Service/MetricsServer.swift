import Foundation
import Gallery
import Glibc
import Hummingbird
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle

/// Serves `GET /metrics` in Prometheus' text format, from `registry`, on `address`, for as
/// long as `photosync run` runs. Nothing else is served, and nothing is written.
///
/// A port of 0 binds a free one; the address actually bound is logged at `notice`:
/// `metrics: serving http://127.0.0.1:PORT/metrics`. It speaks HTTP as `serve` does
/// (``Gallery/http1(idleTimeout:)``): a connection that sends nothing for a minute is closed.
struct MetricsServer: Service {
    let address: ListenAddress
    let registry: PrometheusCollectorRegistry
    let logger: Logger
    /// How long a connection may stay open without a request.
    var idleTimeout = Gallery.idleTimeout
    /// Brings gauges that are read rather than pushed (the engine's queue depths) up to date.
    let beforeScrape: @Sendable () async -> Void

    func run() async throws {
        do {
            try await application.run()
        } catch {
            throw Self.cannotServe(address, reason: Self.reason(error))
        }
    }

    /// The server `run()` runs.
    var application: some ApplicationProtocol {
        let router = Router()
        router.get("metrics") { [registry, beforeScrape] _, _ -> Response in
            await beforeScrape()
            var text: [UInt8] = []
            registry.emit(into: &text)
            return Response(
                status: .ok,
                headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: text)))
        }
        return Application(
            router: router,
            server: Gallery.http1(idleTimeout: idleTimeout),
            configuration: ApplicationConfiguration(
                address: .hostname(address.host, port: address.port), serverName: "photosync"),
            onServerRunning: { [logger, address] channel in
                let port = channel.localAddress?.port ?? address.port
                logger.notice("metrics: serving http://\(address.urlHost):\(port)/metrics")
            },
            logger: Logger(label: "photosync.metrics"))
    }

    /// Binds `address` once and lets it go, so that `run` refuses a busy port before it creates
    /// or locks anything. Another process may still take the port in between: `run()` then
    /// fails the same way.
    ///
    /// - Throws: the ``CommandFailure`` (exit 78) `run()` would throw for the same address.
    static func checkAvailable(_ address: ListenAddress) throws(CommandFailure) {
        var hints = addrinfo()
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let lookup = getaddrinfo(address.host, String(address.port), &hints, &found)
        guard lookup == 0, let first = found else {
            throw cannotServe(address, reason: String(cString: gai_strerror(lookup)))
        }
        defer { freeaddrinfo(found) }
        let descriptor = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard descriptor >= 0 else { throw cannotServe(address, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        // As SwiftNIO binds: a port left in TIME_WAIT by the last run is free.
        var on: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        guard bind(descriptor, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            throw cannotServe(address, reason: String(cString: strerror(errno)))
        }
    }

    private static func cannotServe(_ address: ListenAddress, reason: String) -> CommandFailure {
        CommandFailure(
            code: .config,
            message: "cannot serve metrics on \(address): \(reason); choose another --metrics-listen address")
    }

    private static func reason(_ error: any Error) -> String {
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)) }
        return "\(error)"
    }
}

/// A `HOST:PORT` to listen on: an IPv4 address, `localhost`, or a bracketed IPv6 address.
struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    var host: String
    var port: Int

    /// The address `text` names, or nil when it is not `HOST:PORT`.
    init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (0...65535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let isIPv4 =
            host.split(separator: ".", omittingEmptySubsequences: false).count == 4
            && host.split(separator: ".").allSatisfy { UInt8($0) != nil }
        let isIPv6 = host.contains(":") && host.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
        guard isIPv4 || isIPv6 || host == "localhost" else { return nil }
        self.host = host
        self.port = port
    }

    /// The host as it goes in a URL: IPv6 in brackets.
    var urlHost: String { host.contains(":") ? "[\(host)]" : host }

    /// Whether only this machine can reach it: `localhost`, 127.0.0.0/8 or `::1`.
    var isLoopback: Bool {
        host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "0:0:0:0:0:0:0:1"
    }

    var description: String { "\(urlHost):\(port)" }
}

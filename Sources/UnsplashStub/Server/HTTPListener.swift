import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// A Hummingbird HTTP/1.1 server that hands every request to one handler: the only code that
/// knows which server library the stub runs on.
///
/// SwiftNIO's bootstrap sets `TCP_NODELAY` on the listening socket, and Linux passes it on to every
/// accepted connection (checked with strace), so a small answer leaves at once instead of waiting
/// about 40 ms for Nagle's algorithm, as it did with the previous library.
final class HTTPListener: Sendable {
    typealias Handler = @Sendable (StubRequest) async -> StubResponse

    /// The port actually bound, also when port 0 was asked for.
    let port: UInt16
    private let services: ServiceGroup
    private let running: Task<Void, Never>
    private let heldAnswers: HeldAnswers

    private init(port: UInt16, services: ServiceGroup, running: Task<Void, Never>, heldAnswers: HeldAnswers) {
        self.port = port
        self.services = services
        self.running = running
        self.heldAnswers = heldAnswers
    }

    /// Binds `address` and serves until `stop()`; returns once connections are accepted.
    /// - Throws: `UnsplashStubError.cannotListen` when the address cannot be bound.
    static func start(on address: ListeningAddress, handler: @escaping Handler) async throws -> HTTPListener {
        // The server reports that it listens through `onServerRunning`, and a bind failure by
        // throwing from `run()`: whichever comes first decides.
        let (outcomes, continuation) = AsyncStream.makeStream(of: Result<Int, any Error>.self)
        let heldAnswers = HeldAnswers()
        let logger = Logger(label: "unsplash-stub") { _ in SwiftLogNoOpLogHandler() }
        let application = Application(
            responder: CallbackResponder { (request: Request, context: ConnectionContext) in
                try await respond(to: request, on: context.channel, holding: heldAnswers, with: handler)
            },
            configuration: .init(address: .hostname(address.host, port: Int(address.port))),
            onServerRunning: { channel in continuation.yield(.success(channel.localAddress?.port ?? 0)) },
            logger: logger)
        // A group of its own, so that `stop()` can shut the application down gracefully.
        var configuration = ServiceGroupConfiguration(services: [.init(service: application)], logger: logger)
        // Only a stuck connection could outlast this; then the server is cancelled.
        configuration.maximumGracefulShutdownDuration = .seconds(10)
        let services = ServiceGroup(configuration: configuration)
        let running = Task {
            do {
                try await services.run()
                continuation.yield(.failure(CancellationError()))
            } catch {
                continuation.yield(.failure(error))
            }
        }
        var outcome: Result<Int, any Error> = .failure(CancellationError())
        for await first in outcomes {
            outcome = first
            break
        }
        continuation.finish()

        do {
            return HTTPListener(
                port: UInt16(try outcome.get()), services: services, running: running, heldAnswers: heldAnswers)
        } catch {
            running.cancel()
            await running.value
            throw UnsplashStubError.cannotListen(address: address.description, reason: "\(error)")
        }
    }

    /// Closes the listening socket and every connection, and returns once the server has
    /// stopped. Answers held back on purpose are cut off at once: a stub that stops must not
    /// wait out the long delays tests give it. Answers being written are finished first.
    ///
    /// The shutdown is graceful rather than a cancellation: cancelling the server drops
    /// connections accepted in that instant (clients reconnect at once when a kept-alive
    /// connection closes) before anything handles them, which SwiftNIO treats as a fatal error.
    func stop() async {
        heldAnswers.cutOffAll()
        await services.triggerGracefulShutdown()
        await running.value
    }

    // MARK: - Translating to and from Hummingbird

    private struct ConnectionCut: Error {}

    private static func respond(
        to request: Request, on channel: any Channel, holding heldAnswers: HeldAnswers, with handler: Handler
    ) async throws -> Response {
        let answer = await handler(
            StubRequest(
                method: request.method.rawValue,
                path: request.uri.path.removingPercentEncoding ?? request.uri.path,
                query: parseQuery(request.uri.query),
                // HTTPTypes moves `Host` into the authority; the log keeps it a header, as sent.
                headers: (request.head.authority.map { [("Host", $0)] } ?? [])
                    + request.headers.map { ($0.name.rawName, $0.value) }))
        if let delay = answer.delay {
            try await heldAnswers.hold(for: delay, on: channel)
        }

        var headers = HTTPFields()
        for (name, value) in answer.headers {
            guard let fieldName = HTTPField.Name(name) else { continue }
            headers.append(HTTPField(name: fieldName, value: value))
        }
        let status = HTTPResponse.Status(code: answer.status, reasonPhrase: StubResponse.phrase(answer.status))
        let responseBody = body(answer.body, headers: &headers, channel: channel, heldAnswers: heldAnswers)
        return Response(status: status, headers: headers, body: responseBody)
    }

    private static func body(
        _ body: StubResponse.Body, headers: inout HTTPFields, channel: any Channel, heldAnswers: HeldAnswers
    ) -> ResponseBody {
        switch body {
        case .complete(let data):
            return ResponseBody(byteBuffer: ByteBuffer(bytes: data))
        case .mismatched(let data, let declaredLength):
            headers[.contentLength] = String(declaredLength)
            return ResponseBody(contentLength: declaredLength) { writer in
                try await writer.write(ByteBuffer(bytes: data))
                // Throwing instead of finishing makes the server close the connection, so the
                // client sees the body end where these bytes end, whatever was declared.
                throw ConnectionCut()
            }
        case .generated(let prefix, let filler, let count, let declaresLength):
            return ResponseBody(contentLength: declaresLength ? count : nil) { writer in
                var written = 0
                var chunk = ByteBuffer(bytes: prefix.prefix(count))
                while written < count {
                    if chunk.readableBytes == 0 {
                        chunk = ByteBuffer(bytes: filler.prefix(count - written))
                    }
                    written += chunk.readableBytes
                    try await writer.write(chunk)
                    chunk.clear()
                }
                try await writer.finish(nil)
            }
        case .trickled(let data, let interval):
            return ResponseBody(contentLength: data.count) { writer in
                for byte in data {
                    try await writer.write(ByteBuffer(bytes: [byte]))
                    // Held as a delay is, so that stopping the stub cuts the trickle off.
                    try await heldAnswers.hold(for: interval, on: channel)
                }
                try await writer.finish(nil)
            }
        }
    }

    private static func parseQuery(_ query: String?) -> [(name: String, value: String)] {
        guard let query, !query.isEmpty else { return [] }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            // Foundation's percent-decoding is slow on Linux, and most queries need none.
            func decode(_ text: Substring) -> String {
                text.contains("%") ? String(text).removingPercentEncoding ?? String(text) : String(text)
            }
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }
}

/// Hummingbird's basic context plus the connection, which the stub closes to cut an answer off.
struct ConnectionContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}

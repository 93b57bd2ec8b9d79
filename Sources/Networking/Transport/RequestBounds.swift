import AsyncHTTPClient
import Foundation
import NIOCore

/// How long one request of ``AsyncHTTPClientSession`` may take, and the checks that hold it to
/// that.
///
/// - With a ``TransportRequest/timeout``, the whole answer, head and body, must be in by then:
///   AsyncHTTPClient's deadline bounds the head (it stops at the head), and each read of the body
///   races the time left.
/// - Otherwise the head must come within the connect and read timeouts together (a host that
///   trickles its headers is cut off there, although each byte resets the read timeout), and the
///   body must keep the request's ``MinimumRate``, or the session's default one. The rate is
///   checked as each chunk arrives; a silence is ended by the read timeout.
struct RequestBounds: Sendable {
    /// The longest wait for the head, from the moment the request is sent.
    let headTimeout: Duration
    /// The request's total deadline, if it has one.
    let timeout: Duration?
    let minimumRate: MinimumRate?

    init(_ request: TransportRequest, configuration: AsyncHTTPClientSession.Configuration) {
        timeout = request.timeout
        headTimeout = request.timeout ?? configuration.connectTimeout + configuration.readTimeout
        minimumRate = request.minimumRate ?? (request.timeout == nil ? configuration.minimumRate : nil)
    }

    /// The error for a head that did not arrive within ``headTimeout``, or within the read
    /// timeout, which may end the wait first.
    func missedHead(sentAt: ContinuousClock.Instant) -> TransportError {
        let elapsed = (ContinuousClock.now - sentAt).inSeconds
        guard let timeout else {
            return TransportError(
                .timedOut, detail: "no answer head within \(ByteRate.seconds(min(elapsed, headTimeout.inSeconds)))",
                shortfall: Shortfall(bytes: 0, seconds: elapsed))
        }
        return TransportError(.timedOut, shortfall: Shortfall(bytes: 0, seconds: elapsed, deadline: timeout))
    }

    /// `body`, read within these bounds; errors are turned into ``TransportError``s by `mapError`.
    func body(
        _ body: HTTPClientResponse.Body, sentAt: ContinuousClock.Instant,
        mapError: @escaping @Sendable (any Error) -> TransportError
    ) -> ResponseBody {
        ResponseBody {
            let reader = BoundedBodyReader(
                iterator: body.makeAsyncIterator(), bounds: self, sentAt: sentAt, mapError: mapError)
            return { try await reader.next() }
        }
    }
}

/// One iteration of a body within its ``RequestBounds``. Used by one task at a time: the reader
/// of the body, and the child task it hands each read to while it races a deadline.
private final class BoundedBodyReader: @unchecked Sendable {
    private var iterator: HTTPClientResponse.Body.AsyncIterator
    private let bounds: RequestBounds
    private let sentAt: ContinuousClock.Instant
    private let headAt = ContinuousClock.now
    private let mapError: @Sendable (any Error) -> TransportError
    private var watch: RateWatch?
    private var received: Int64 = 0

    init(
        iterator: HTTPClientResponse.Body.AsyncIterator, bounds: RequestBounds, sentAt: ContinuousClock.Instant,
        mapError: @escaping @Sendable (any Error) -> TransportError
    ) {
        self.iterator = iterator
        self.bounds = bounds
        self.sentAt = sentAt
        self.mapError = mapError
        watch = bounds.minimumRate.map(RateWatch.init)
    }

    func next() async throws(TransportError) -> Data? {
        let buffer: ByteBuffer?
        do {
            if let timeout = bounds.timeout {
                buffer = try await next(before: sentAt + timeout)
            } else {
                buffer = try await iterator.next()
            }
        } catch is DeadlinePassed {
            throw pastDeadline()
        } catch {
            throw mapError(error)
        }
        guard let buffer else { return nil }
        let chunk = Self.data(viewing: buffer)
        received += Int64(chunk.count)
        if var watch {
            if let shortfall = watch.received(chunk.count, at: .now - headAt) {
                throw TransportError(.tooSlow, shortfall: shortfall)
            }
            self.watch = watch
        }
        return chunk
    }

    /// The bytes of `buffer` as `Data`, without copying them: the `Data` keeps the buffer's
    /// storage alive, which nothing writes to once NIO has handed it over (a `ByteBuffer` is
    /// copy-on-write). NIOFoundationCompat's `getData(at:length:byteTransferStrategy: .noCopy)`
    /// does the same. Copying each chunk cost a `malloc` and a `memcpy` per chunk.
    static func data(viewing buffer: ByteBuffer) -> Data {
        guard buffer.readableBytes > 0 else { return Data() }
        return buffer.withUnsafeReadableBytes { bytes in
            Data(
                bytesNoCopy: UnsafeMutableRawPointer(mutating: bytes.baseAddress!), count: bytes.count,
                deallocator: .custom { _, _ in withExtendedLifetime(buffer) {} })
        }
    }

    private struct DeadlinePassed: Error {}

    /// The next chunk, or ``DeadlinePassed`` if `deadline` comes first: the read is then
    /// cancelled, which closes the connection.
    private func next(before deadline: ContinuousClock.Instant) async throws -> ByteBuffer? {
        guard deadline > .now else { throw DeadlinePassed() }
        return try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
            group.addTask { try await self.iterator.next() }
            group.addTask {
                try await Task.sleep(until: deadline, clock: .continuous)
                throw DeadlinePassed()
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { return nil }
            return first
        }
    }

    private func pastDeadline() -> TransportError {
        TransportError(
            .timedOut,
            shortfall: Shortfall(
                bytes: received, seconds: (ContinuousClock.now - sentAt).inSeconds, deadline: bounds.timeout))
    }
}

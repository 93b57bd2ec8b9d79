import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A real HTTP server on 127.0.0.1 whose answers are scripts of raw writes, so tests can send
/// what well-behaved servers never do: a body cut short, a stall mid-body, a redirect to another
/// origin, 300 MB without holding them.
///
/// Every request is recorded (method, target, headers) before its script runs. Answers are
/// written as bytes, with no HTTP encoder in between: ``Action/head(status:headers:)`` writes a
/// status line and headers exactly as given.
public final class ScriptedHTTPServer: Sendable {
    /// One request as it arrived.
    public struct Request: Sendable {
        public var method: String
        /// The request target: `/path?query`, or an absolute URL when sent to a proxy.
        public var target: String
        /// Header names lower-cased.
        public var headers: [String: String]

        public var path: String { URLComponents(string: target)?.path ?? target }
    }

    /// One step of an answer.
    public enum Action: Sendable {
        /// `HTTP/1.1 <status> <reason>` and the headers, then the blank line.
        case head(status: Int, headers: [(String, String)])
        case write(Data)
        /// `chunk`, `times` times over, each write awaited, so the server never holds more than
        /// one chunk.
        case repeating(Data, times: Int)
        /// `data` one byte at a time, `interval` apart: a host that trickles (a failing CDN node,
        /// a proxy with a full buffer), whose every byte resets a read timeout. Trickles a head
        /// when given ``ScriptedHTTPServer/headBytes(status:headers:)``.
        case trickle(Data, every: Duration)
        /// Waits before the next action.
        case pause(Duration)
        /// Writes nothing more and keeps the connection open until the client gives up.
        case stall
        /// Closes the connection.
        case close
    }

    public typealias Responder = @Sendable (Request) -> [Action]

    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let responder: Responder
    private let recorded = Mutex<[Request]>([])
    /// The answers being written, cancelled by ``stop()`` so that none writes after it.
    private let answering = Mutex<[Int: Task<Void, Never>]>([:])
    private let answerCount = Atomic<Int>(0)

    /// The port bound on 127.0.0.1.
    public let port: Int

    /// Starts listening on an ephemeral port of 127.0.0.1.
    public init(responder: @escaping Responder) async throws {
        self.responder = responder
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        self.group = group
        let box = Box()
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Handler(server: box))
                }
            }
        channel = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        port = channel.localAddress?.port ?? 0
        box.server.withLock { $0 = self }
    }

    /// `http://127.0.0.1:<port>` followed by `path`.
    public func url(_ path: String = "/") -> URL {
        URL(string: "http://127.0.0.1:\(port)" + (path.hasPrefix("/") ? path : "/" + path))!
    }

    /// Every request received, in order.
    public var requests: [Request] { recorded.withLock { $0 } }

    /// `HTTP/1.1 <status> <reason>`, the headers and the blank line, as ``Action/head(status:headers:)``
    /// writes them.
    public static func headBytes(status: Int, headers: [(String, String)]) -> Data {
        let reason = HTTPResponseStatus(statusCode: status).reasonPhrase
        var text = "HTTP/1.1 \(status) \(reason)\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        return Data(text.utf8)
    }

    /// Answers `status` with `headers` and `body`, with its `Content-Length`.
    public static func respond(_ status: Int = 200, headers: [(String, String)] = [], body: Data = Data()) -> [Action] {
        [.head(status: status, headers: headers + [("Content-Length", "\(body.count)")]), .write(body)]
    }

    /// Closes the listener and every connection; answers still being written (a trickle, a
    /// pause) end there.
    public func stop() async {
        try? await channel.close()
        for task in answering.withLock({ Array($0.values) }) {
            task.cancel()
        }
        try? await group.shutdownGracefully()
    }

    /// Writes the answer to `request` in a task of its own, which ``stop()`` cancels.
    fileprivate func startAnswering(_ request: Request, on channel: any Channel) {
        let id = answerCount.add(1, ordering: .relaxed).newValue
        answering.withLock { tasks in
            tasks[id] = Task {
                await self.answer(request, on: channel)
                _ = self.answering.withLock { $0.removeValue(forKey: id) }
            }
        }
    }

    fileprivate func record(_ request: Request) {
        recorded.withLock { $0.append(request) }
    }

    fileprivate func answer(_ request: Request, on channel: any Channel) async {
        record(request)
        for action in responder(request) {
            do {
                switch action {
                case .head(let status, let headers):
                    let head = Self.headBytes(status: status, headers: headers)
                    try await channel.writeAndFlush(ByteBuffer(bytes: head)).get()
                case .write(let data):
                    try await channel.writeAndFlush(ByteBuffer(bytes: data)).get()
                case .repeating(let chunk, let times):
                    let buffer = ByteBuffer(bytes: chunk)
                    for _ in 0..<times {
                        try await channel.writeAndFlush(buffer).get()
                    }
                case .trickle(let data, let interval):
                    for byte in data {
                        try Task.checkCancellation()
                        try await channel.writeAndFlush(ByteBuffer(bytes: [byte])).get()
                        try await Task.sleep(for: interval)
                    }
                case .pause(let duration):
                    try await Task.sleep(for: duration)
                case .stall:
                    return
                case .close:
                    try await channel.close()
                    return
                }
            } catch {
                // The client went away: nothing more to send.
                return
            }
        }
    }

    /// Lets the channel handlers reach the server once it exists.
    private final class Box: Sendable {
        let server = Mutex<ScriptedHTTPServer?>(nil)
    }

    /// Reads request heads by hand rather than with NIO's decoder, so that a `CONNECT` (a
    /// client tunnelling through this server as a proxy) is followed by the tunnelled request
    /// on the same connection. Request bodies are not expected and not read.
    private final class Handler: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        private let server: Box
        private var pending = ""

        init(server: Box) {
            self.server = server
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            pending += buffer.readString(length: buffer.readableBytes) ?? ""
            while let end = pending.range(of: "\r\n\r\n") {
                let head = String(pending[..<end.lowerBound])
                pending = String(pending[end.upperBound...])
                handle(head, channel: context.channel)
            }
        }

        private func handle(_ head: String, channel: any Channel) {
            var lines = head.components(separatedBy: "\r\n")
            let requestLine = lines.removeFirst().split(separator: " ")
            guard requestLine.count >= 2, let server = server.server.withLock({ $0 }) else { return }
            var headers: [String: String] = [:]
            for line in lines {
                guard let colon = line.firstIndex(of: ":") else { continue }
                let name = line[..<colon].lowercased()
                let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                headers[name] = headers[name].map { $0 + ", " + value } ?? value
            }
            let request = Request(method: String(requestLine[0]), target: String(requestLine[1]), headers: headers)
            if request.method == "CONNECT" {
                server.record(request)
                channel.writeAndFlush(ByteBuffer(string: "HTTP/1.1 200 Connection established\r\n\r\n"), promise: nil)
                return
            }
            server.startAnswering(request, on: channel)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}

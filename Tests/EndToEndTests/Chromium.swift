import Foundation
import Logging
import NIOCore
import Synchronization
import TestSupport
import WSClient

/// Headless Chromium (Debian's `chromium`) in a temporary profile, driven over the Chrome
/// DevTools Protocol. Starting it throws when it cannot start: a browser test fails then, it
/// never skips.
final class Chromium: Sendable {
    private let process: Spawned
    private let profile: URL
    /// The browser's DevTools endpoint, `ws://127.0.0.1:PORT/devtools/browser/ID`.
    let endpoint: String

    struct StartError: Error, CustomStringConvertible {
        var description: String
    }

    static func start(windowSize: (Int, Int) = (1280, 900)) async throws -> Chromium {
        guard
            let executable = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first(
                where: FileManager.default.isExecutableFile)
        else {
            throw StartError(
                description:
                    "no chromium executable: install Debian's chromium (apt-get install -y chromium); .ci/run does")
        }
        let profile = FileManager.default.temporaryDirectory.appending(path: "photosync-chromium-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        let arguments = [
            "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--no-default-browser-check", "--disable-extensions", "--hide-scrollbars",
            // The DevTools client (swift-websocket) sends `Origin: ws://127.0.0.1`, which
            // Chromium refuses unless allowed by name.
            "--remote-debugging-port=0", "--remote-allow-origins=ws://127.0.0.1", "--user-data-dir=\(profile.path)",
            "--window-size=\(windowSize.0),\(windowSize.1)", "about:blank",
        ]
        let input = try Spawned.open("/dev/null")
        let output = try Spawned.open("/dev/null", writing: true)
        let errors = try Spawned.pipe()
        let process = try Spawned(
            executable, arguments, input: input.fileDescriptor, output: output.fileDescriptor,
            error: errors.write.fileDescriptor)
        for handle in [input, output, errors.write] { try? handle.close() }

        // Chromium says where DevTools listens on stderr; the pipe is read to its end on a
        // thread of its own, so Chromium never blocks on a full pipe.
        let (lines, sink) = AsyncStream.makeStream(of: String.self)
        let transcript = Mutex("")
        Thread.detachNewThread {
            var pending = Data()
            while true {
                let chunk = errors.read.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    transcript.withLock { $0 += line + "\n" }
                    sink.yield(line)
                    pending.removeSubrange(pending.startIndex...newline)
                }
            }
            try? errors.read.close()
            sink.finish()
        }
        var endpoint: String?
        for await line in lines {
            if let range = line.range(of: "ws://[^ ]+", options: .regularExpression),
                line.contains("DevTools listening on")
            {
                endpoint = String(line[range])
                break
            }
        }
        guard let endpoint else {
            let ending = process.waitUntilEnded()
            try? FileManager.default.removeItem(at: profile)
            throw StartError(
                description: "chromium exited (\(ending.status)) before DevTools listened:\n"
                    + transcript.withLock { $0 })
        }
        return Chromium(process: process, profile: profile, endpoint: endpoint)
    }

    private init(process: Spawned, profile: URL, endpoint: String) {
        self.process = process
        self.profile = profile
        self.endpoint = endpoint
    }

    func stop() {
        process.signal(SIGTERM)
        _ = process.waitUntilEnded()
        try? FileManager.default.removeItem(at: profile)
    }

    /// Runs `body` with the browser's first tab, attached through the browser's own endpoint.
    func withPage<T: Sendable>(_ body: @escaping @Sendable (DevToolsPage) async throws -> T) async throws -> T {
        let outcome = Mutex<Result<T, any Error>?>(nil)
        var logger = Logger(label: "cdp")
        logger.logLevel = .warning
        // Screenshots arrive as one large message.
        try await WebSocketClient.connect(url: endpoint, configuration: .init(maxFrameSize: 64 << 20), logger: logger) {
            inbound, outbound, _ in
            let session = DevToolsPage(
                messages: inbound.messages(maxSize: 64 << 20).makeAsyncIterator(), outbound: outbound)
            do {
                try await session.attachToFirstTab()
                let value = try await body(session)
                outcome.withLock { $0 = .success(value) }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
            try await outbound.close(.normalClosure, reason: nil)
        }
        guard let result = outcome.withLock({ $0 }) else {
            throw StartError(description: "the DevTools connection closed before the test ran")
        }
        return try result.get()
    }
}

/// One tab, spoken to in CDP: JSON commands with ids, answered by results with the same id,
/// with events (`{"method": ...}`) in between.
final class DevToolsPage {
    private var messages: WebSocketInboundMessageStream.AsyncIterator
    private let outbound: WebSocketOutboundWriter
    private var lastID = 0
    /// The tab's session on the browser's connection; commands go to the browser without one.
    private var sessionID: String?
    /// Events that arrived while a command's answer was awaited.
    private var events: [[String: Any]] = []

    struct ProtocolError: Error, CustomStringConvertible {
        var description: String
    }

    init(messages: WebSocketInboundMessageStream.AsyncIterator, outbound: WebSocketOutboundWriter) {
        self.messages = messages
        self.outbound = outbound
    }

    /// Directs every later command to the browser's first tab ("flat" sessions: one connection).
    func attachToFirstTab() async throws {
        let targets = try await send("Target.getTargets")["targetInfos"] as? [[String: Any]] ?? []
        guard let tab = targets.first(where: { $0["type"] as? String == "page" })?["targetId"] as? String else {
            throw ProtocolError(description: "chromium has no tab: \(targets)")
        }
        sessionID = try await send("Target.attachToTarget", ["targetId": tab, "flatten": true])["sessionId"] as? String
    }

    /// Sends `method` and returns its `result`; throws its `error`.
    @discardableResult
    func send(_ method: String, _ parameters: [String: Any] = [:]) async throws -> [String: Any] {
        lastID += 1
        let id = lastID
        var message: [String: Any] = ["id": id, "method": method, "params": parameters]
        if let sessionID { message["sessionId"] = sessionID }
        let command = try JSONSerialization.data(withJSONObject: message)
        try await outbound.write(.text(String(decoding: command, as: UTF8.self)))
        while true {
            let message = try await next()
            if message["id"] as? Int == id {
                if let error = message["error"] { throw ProtocolError(description: "\(method): \(error)") }
                return message["result"] as? [String: Any] ?? [:]
            }
            if message["method"] != nil { events.append(message) }
        }
    }

    /// Waits for the event `method`, whether it already came or is still to come.
    func awaitEvent(_ method: String) async throws -> [String: Any] {
        if let index = events.firstIndex(where: { $0["method"] as? String == method }) {
            return events.remove(at: index)
        }
        while true {
            let message = try await next()
            if message["method"] as? String == method { return message }
        }
    }

    /// Loads `url` and returns once its `load` event fired: its images are loaded (or failed).
    func navigate(_ url: String) async throws {
        try await loading { _ = try await self.send("Page.navigate", ["url": url]) }
    }

    /// Runs `action`, which starts a navigation, and waits for the new page's `load` event.
    func loading(_ action: () async throws -> Void) async throws {
        events.removeAll { $0["method"] as? String == "Page.loadEventFired" }
        try await action()
        _ = try await awaitEvent("Page.loadEventFired")
    }

    /// The value of the JavaScript `expression` (awaited when it is a promise), as JSON gives it.
    func evaluate(_ expression: String) async throws -> Any? {
        let result = try await send(
            "Runtime.evaluate", ["expression": expression, "returnByValue": true, "awaitPromise": true])
        if let exception = result["exceptionDetails"] {
            throw ProtocolError(description: "\(expression): \(exception)")
        }
        return (result["result"] as? [String: Any])?["value"]
    }

    /// Types `text` into the focused element and presses Enter, as a person would.
    func type(_ text: String, thenPress key: String = "Enter") async throws {
        try await send("Input.insertText", ["text": text])
        try await send(
            "Input.dispatchKeyEvent",
            ["type": "keyDown", "key": key, "code": key, "windowsVirtualKeyCode": 13, "text": "\r"])
        try await send(
            "Input.dispatchKeyEvent", ["type": "keyUp", "key": key, "code": key, "windowsVirtualKeyCode": 13])
    }

    /// A PNG of the viewport.
    func screenshot() async throws -> Data {
        let result = try await send("Page.captureScreenshot", ["format": "png"])
        guard let base64 = result["data"] as? String, let data = Data(base64Encoded: base64) else {
            throw ProtocolError(description: "Page.captureScreenshot returned no image")
        }
        return data
    }

    private func next() async throws -> [String: Any] {
        guard let message = try await messages.next() else {
            throw ProtocolError(description: "chromium closed the DevTools connection")
        }
        let data: Data =
            switch message {
            case .text(let text): Data(text.utf8)
            case .binary(let buffer): Data(buffer.readableBytesView)
            }
        return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }
}

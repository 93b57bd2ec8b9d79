import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A datagram socket standing in for systemd's `$NOTIFY_SOCKET`: each message the daemon sends
/// arrives in ``messages``.
final class NotifySocket: Sendable {
    let path: String
    let messages: AsyncStream<String>
    private let descriptor: Int32
    private let log = OutputLog()

    /// Every message received so far.
    var received: [String] { log.entries }

    init() throws {
        // sun_path holds 108 bytes: keep the path short.
        let path = "/tmp/psn-\(UUID().uuidString.prefix(8)).sock"
        let descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        self.path = path
        self.descriptor = descriptor
        guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: path.utf8.prefix(buffer.count - 1))
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard bound == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }

        let (stream, sink) = AsyncStream.makeStream(of: String.self)
        messages = stream
        // A blocking receive on a thread of its own; closing the socket ends it.
        Thread.detachNewThread { [descriptor, log] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                if count <= 0 { break }
                let message = String(decoding: buffer[0..<count], as: UTF8.self)
                log.append(message)
                sink.yield(message)
            }
            sink.finish()
        }
    }

    /// Waits for a message for which `predicate` holds; nil when the socket closed first.
    func awaitMessage(_ predicate: (String) -> Bool) async -> String? {
        for await message in messages where predicate(message) {
            return message
        }
        return nil
    }

    func close() {
        shutdown(descriptor, Int32(SHUT_RDWR))
        Glibc.close(descriptor)
        unlink(path)
    }
}

/// Messages kept in order, readable from any thread.
final class OutputLog: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var entries: [String] { lines.withLock { $0 } }
}

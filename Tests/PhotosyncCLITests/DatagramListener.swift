import Foundation
import Glibc

/// A bound `AF_UNIX` datagram socket standing in for systemd's notification socket.
final class DatagramListener {
    let fd: Int32
    /// What to put in `NOTIFY_SOCKET`.
    let notifySocket: String
    private let directory: TemporaryDirectory?

    /// Bound to a file in a fresh directory.
    convenience init() {
        let directory = TemporaryDirectory()
        self.init(address: directory.path + "/notify", abstract: false, directory: directory)
    }

    /// Bound to a unique name in the abstract namespace.
    convenience init(abstract: Void) {
        self.init(address: "photosync-tests-" + UUID().uuidString, abstract: true, directory: nil)
    }

    private init(address: String, abstract: Bool, directory: TemporaryDirectory?) {
        self.directory = directory
        notifySocket = abstract ? "@" + address : address
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        precondition(fd >= 0, "socket: \(errno)")
        var storage = sockaddr_un()
        storage.sun_family = sa_family_t(AF_UNIX)
        let bytes: [UInt8] = abstract ? [0] + Array(address.utf8) : Array(address.utf8) + [0]
        withUnsafeMutableBytes(of: &storage.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count)
        let result = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        precondition(result == 0, "bind: \(errno)")
    }

    deinit { close(fd) }

    /// The datagrams already queued, oldest first, without waiting: `sendto` on a Unix datagram
    /// socket has queued the message by the time it returns.
    func received() -> [String] {
        var messages: [String] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            guard count >= 0 else { break }
            messages.append(String(decoding: buffer[0..<count], as: UTF8.self))
        }
        return messages
    }
}

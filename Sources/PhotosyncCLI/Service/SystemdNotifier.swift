import Foundation
// Linux only: SOCK_CLOEXEC and MSG_NOSIGNAL, like systemd itself.
import Glibc
import Logging

/// Tells systemd about the service's state, as `sd_notify(3)` does, without libsystemd.
///
/// Each message is one `AF_UNIX` datagram to the socket in `NOTIFY_SOCKET` (a path, or `@name`
/// for the abstract namespace). Without `NOTIFY_SOCKET` every method does nothing, so the daemon
/// can call them unconditionally. Sending never throws: systemd being unreachable must not stop
/// the sync; failures are logged at debug level.
public struct SystemdNotifier: Sendable {
    /// Where `NOTIFY_SOCKET` points.
    public enum Address: Sendable, Equatable {
        case path(String)
        case abstract(String)
    }

    /// `nil` when notifications are off (`NOTIFY_SOCKET` unset or unusable).
    public let address: Address?
    /// systemd's watchdog timeout (`WATCHDOG_USEC`), when it is meant for this process.
    public let watchdogTimeout: Duration?
    private let logger: Logger

    /// - Parameters:
    ///   - environment: reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID`.
    ///   - processID: compared with `WATCHDOG_PID`; a watchdog meant for another process is ignored.
    ///   - logger: receives send failures, at debug level.
    public init(
        environment: [String: String],
        processID: Int32 = getpid(),
        logger: Logger = Logger(label: "photosync.systemd")
    ) {
        self.logger = logger
        self.address = Self.address(environment["NOTIFY_SOCKET"], logger: logger)
        self.watchdogTimeout = Self.watchdogTimeout(environment, processID: processID)
    }

    /// How often to send `WATCHDOG=1`: half of ``watchdogTimeout``, as sd_watchdog_enabled(3)
    /// advises, so one late ping does not get the service killed. `nil` when there is no watchdog.
    public var watchdogInterval: Duration? { watchdogTimeout.map { $0 / 2 } }

    /// Whether messages go anywhere.
    public var isEnabled: Bool { address != nil }

    /// `READY=1`: start-up is complete (for `Type=notify` units).
    public func ready() { send("READY=1") }

    /// `STATUS=text`: a one-line status shown by `systemctl status`. Line breaks become spaces.
    public func status(_ text: String) {
        let line = text.map { $0.isNewline ? " " : String($0) }.joined()
        send("STATUS=\(line)")
    }

    /// `WATCHDOG=1`: the service is alive.
    public func watchdog() { send("WATCHDOG=1") }

    /// `STOPPING=1`: shutdown has begun.
    public func stopping() { send("STOPPING=1") }

    /// `RELOADING=1`: a reload has begun; ``ready()`` says it has ended, whether or not it took.
    /// `MONOTONIC_USEC` is the `CLOCK_MONOTONIC` time, which `Type=notify-reload` units require.
    public func reloading() {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        send("RELOADING=1\nMONOTONIC_USEC=\(Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1_000)")
    }

    /// Sends `fields` (newline-separated `NAME=value` assignments) as one datagram.
    public func send(_ fields: String) {
        guard let address else { return }
        do {
            try Self.sendDatagram(Array(fields.utf8), to: address)
        } catch {
            logger.debug(
                "sd_notify failed",
                metadata: ["socket": "\(Self.text(address))", "state": "\(fields)", "error": "\(error)"])
        }
    }

    struct SocketError: Error, CustomStringConvertible {
        let call: String
        let code: Int32
        var description: String { "\(call): \(String(cString: strerror(code)))" }
    }

    private static func address(_ value: String?, logger: Logger) -> Address? {
        guard let value, !value.isEmpty else { return nil }
        if value.hasPrefix("@") { return .abstract(String(value.dropFirst())) }
        if value.hasPrefix("/") { return .path(value) }
        // e.g. systemd's vsock: addresses, which photosync has no use for.
        logger.debug("NOTIFY_SOCKET not supported; notifications off", metadata: ["NOTIFY_SOCKET": "\(value)"])
        return nil
    }

    private static func watchdogTimeout(_ environment: [String: String], processID: Int32) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"], let usec = Int64(text), usec > 0 else { return nil }
        if let pid = environment["WATCHDOG_PID"], Int32(pid) != processID { return nil }
        return .microseconds(usec)
    }

    private static func text(_ address: Address) -> String {
        switch address {
        case .path(let path): path
        case .abstract(let name): "@" + name
        }
    }

    /// One datagram on a fresh socket, as libsystemd does: nothing to keep open or reconnect.
    static func sendDatagram(_ payload: [UInt8], to address: Address) throws(SocketError) {
        var storage = sockaddr_un()
        let length = try fill(&storage, with: address)
        let type = Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        let fd = socket(AF_UNIX, type, 0)
        guard fd >= 0 else { throw SocketError(call: "socket", code: errno) }
        defer { close(fd) }
        let sent = payload.withUnsafeBytes { bytes in
            withUnsafePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                    sendto(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), address, length)
                }
            }
        }
        guard sent >= 0 else { throw SocketError(call: "sendto", code: errno) }
    }

    /// Writes `address` into `storage`; returns the address length to pass with it.
    static func fill(_ storage: inout sockaddr_un, with address: Address) throws(SocketError) -> socklen_t {
        storage.sun_family = sa_family_t(AF_UNIX)
        // An abstract name starts with a NUL byte and is exactly as long as given; a path is
        // NUL-terminated.
        let bytes: [UInt8] =
            switch address {
            case .path(let path): Array(path.utf8) + [0]
            case .abstract(let name): [0] + Array(name.utf8)
            }
        let capacity = MemoryLayout.size(ofValue: storage.sun_path)
        guard bytes.count <= capacity else { throw SocketError(call: "sockaddr_un", code: ENAMETOOLONG) }
        withUnsafeMutableBytes(of: &storage.sun_path) { $0.copyBytes(from: bytes) }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)!
        return socklen_t(pathOffset + bytes.count)
    }
}

import Foundation
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// photosync's swift-log handler: one event per line, on standard error.
///
/// Two formats, chosen by ``Format/detect(environment:standardError:)``:
/// - ``Format/journal`` under systemd: `<6>message key=value`. The `<N>` prefix is the syslog
///   priority, which journald strips and stores; there is no timestamp because journald adds one.
/// - ``Format/terminal`` otherwise: `2026-11-21T10:00:00Z info message key=value`, UTC.
///
/// Metadata (the logger's, the metadata provider's, then the event's, later winning) is written
/// as `key=value` sorted by key; a value with spaces, quotes, `=` or control characters is
/// quoted. Line breaks and other control characters in the message are escaped (`\n`), so an
/// event never spans two lines.
public struct DaemonLogHandler: LogHandler {
    public enum Format: Sendable, Equatable {
        case journal
        case terminal

        /// `.journal` when `JOURNAL_STREAM` is set and names the file `standardError` is
        /// connected to (systemd's documented check: the variable is inherited by children whose
        /// stderr may go elsewhere); `.terminal` otherwise. When `standardError` is `nil`, a set
        /// `JOURNAL_STREAM` is trusted.
        public static func detect(
            environment: [String: String],
            standardError: FileIdentity? = .standardError
        ) -> Format {
            guard let stream = environment["JOURNAL_STREAM"], !stream.isEmpty else { return .terminal }
            guard let standardError else { return .journal }
            return FileIdentity(journalStream: stream) == standardError ? .journal : .terminal
        }
    }

    /// A file's device and inode numbers, as `JOURNAL_STREAM` gives them (`device:inode`).
    public struct FileIdentity: Sendable, Equatable {
        public var device: UInt64
        public var inode: UInt64

        public init(device: UInt64, inode: UInt64) {
            self.device = device
            self.inode = inode
        }

        /// Parses `JOURNAL_STREAM`'s `device:inode`.
        public init?(journalStream: String) {
            let parts = journalStream.split(separator: ":")
            guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return nil }
            self.init(device: device, inode: inode)
        }

        /// What this process's file descriptor 2 is; `nil` if it is closed.
        public static var standardError: FileIdentity? {
            var info = stat()
            guard fstat(2, &info) == 0 else { return nil }
            return FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        }
    }

    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?

    private let format: Format
    private let output: LogOutput
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - output: where each finished line (with its `\n`) goes.
    ///   - now: the time of an event, for the terminal format.
    public init(
        format: Format,
        logLevel: Logger.Level = .info,
        metadataProvider: Logger.MetadataProvider? = nil,
        output: LogOutput = .standardError,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.format = format
        self.logLevel = logLevel
        self.metadataProvider = metadataProvider
        self.output = output
        self.now = now
    }

    /// Makes every `Logger` in the process use this handler at `level`, in the format
    /// `environment` calls for. Call it once, first thing in the command's `run()`.
    public static func bootstrap(level: Logger.Level, environment: [String: String]) {
        LoggingSystem.bootstrap(factory(level: level, format: .detect(environment: environment)))
    }

    /// The handler factory ``bootstrap(level:environment:)`` installs, for tests and for
    /// `Logger(label:factory:)`.
    public static func factory(
        level: Logger.Level,
        format: Format,
        output: LogOutput = .standardError,
        now: @escaping @Sendable () -> Date = { Date() }
    ) -> @Sendable (String) -> any LogHandler {
        { _ in DaemonLogHandler(format: format, logLevel: level, output: output, now: now) }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get() {
            merged.merge(provided) { $1 }
        }
        if let eventMetadata = event.metadata {
            merged.merge(eventMetadata) { $1 }
        }
        if let error = event.error, merged["error"] == nil {
            merged["error"] = "\(error)"
        }
        output.write(
            Self.line(level: event.level, message: "\(event.message)", metadata: merged, format: format, time: now()))
    }

    /// One event as its finished line, `\n` included.
    static func line(level: Logger.Level, message: String, metadata: Logger.Metadata, format: Format, time: Date)
        -> String
    {
        var line: String
        switch format {
        case .journal:
            line = "<\(syslogPriority(level))>"
        case .terminal:
            line = time.formatted(Date.ISO8601FormatStyle(timeZone: .gmt)) + " \(level.rawValue) "
        }
        line += escaped(message)
        for (key, value) in metadata.sorted(by: { $0.key < $1.key }) {
            line += " " + field(key) + "=" + field(render(value))
        }
        return line + "\n"
    }

    /// syslog(3) priorities, as journald reads them from a `<N>` prefix.
    static func syslogPriority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    private static func render(_ value: Logger.MetadataValue) -> String {
        switch value {
        case .string(let string): string
        case .stringConvertible(let convertible): convertible.description
        case .array(let values): "[" + values.map(render).joined(separator: ", ") + "]"
        case .dictionary(let dictionary):
            "[" + dictionary.sorted { $0.key < $1.key }.map { "\($0.key): \(render($0.value))" }.joined(separator: ", ")
                + "]"
        }
    }

    /// A key or value as written after `key=`: bare when that is unambiguous, quoted otherwise.
    private static func field(_ text: String) -> String {
        let needsQuotes =
            text.isEmpty
            || text.unicodeScalars.contains { scalar in
                scalar == " " || scalar == "\"" || scalar == "=" || scalar == "\\" || isControl(scalar)
            }
        guard needsQuotes else { return text }
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            default: result += escaped(scalar)
            }
        }
        return result + "\""
    }

    private static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        return text.unicodeScalars.map(escaped).joined()
    }

    private static func escaped(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\n": "\\n"
        case "\r": "\\r"
        case "\t": "\\t"
        case _ where isControl(scalar): "\\u{\(String(scalar.value, radix: 16))}"
        default: String(scalar)
        }
    }

    /// C0 and C1 controls, DEL, and the Unicode line and paragraph separators.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}"
    }
}

/// Where ``DaemonLogHandler`` writes finished lines.
public struct LogOutput: Sendable {
    private let writeLine: @Sendable (String) -> Void

    /// `write` receives each line, `\n` included, one call per event.
    public init(_ write: @escaping @Sendable (String) -> Void) {
        self.writeLine = write
    }

    public func write(_ line: String) { writeLine(line) }

    /// File descriptor 2, one `write(2)` per line under a process-wide lock, so lines from
    /// concurrent tasks never interleave.
    public static let standardError = LogOutput { line in
        StandardError.emit(line)
    }
}

private enum StandardError {
    static let lock = Mutex(())

    static func emit(_ line: String) {
        var bytes = Array(line.utf8)
        lock.withLock { _ in
            bytes.withUnsafeMutableBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let written = write(2, buffer.baseAddress! + offset, buffer.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return
                    }
                    offset += written
                }
            }
        }
    }
}

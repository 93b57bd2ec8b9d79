import Foundation
import Logging
import PhotosyncCLI
import Synchronization
import Testing

/// Collects what a ``DaemonLogHandler`` writes.
final class CollectedLines: Sendable {
    private let lines = Mutex<[String]>([])

    var output: LogOutput { LogOutput { line in self.lines.withLock { $0.append(line) } } }
    var all: [String] { lines.withLock { $0 } }
    var text: String { all.joined() }
}

@Suite struct DaemonLogHandlerTests {
    /// 2026-11-21T10:00:00Z
    static let fixedTime = Date(timeIntervalSince1970: 1_795_255_200)

    func logger(_ format: DaemonLogHandler.Format, level: Logger.Level = .trace, into lines: CollectedLines) -> Logger {
        Logger(
            label: "photosync",
            factory: DaemonLogHandler.factory(
                level: level, format: format, output: lines.output, now: { Self.fixedTime }))
    }

    @Test func journalLinesCarryThePriorityAndNoTimestamp() {
        let lines = CollectedLines()
        logger(.journal, into: lines).info("synced page", metadata: ["page": "2", "count": "30"])
        #expect(lines.all == ["<6>synced page count=30 page=2\n"])
    }

    @Test(arguments: [
        (Logger.Level.trace, 7), (.debug, 7), (.info, 6), (.notice, 5), (.warning, 4), (.error, 3), (.critical, 2),
    ])
    func journalPriorityFollowsSyslog(level: Logger.Level, priority: Int) {
        let lines = CollectedLines()
        logger(.journal, into: lines).log(level: level, "event")
        #expect(lines.all == ["<\(priority)>event\n"])
    }

    @Test func terminalLinesStartWithUTCTimeAndLevel() {
        let lines = CollectedLines()
        logger(.terminal, into: lines).warning("rate limit low", metadata: ["remaining": "9"])
        #expect(lines.all == ["2026-11-21T10:00:00Z warning rate limit low remaining=9\n"])
    }

    @Test(arguments: [DaemonLogHandler.Format.journal, .terminal])
    func messageWithLineBreaksStaysOneLine(format: DaemonLogHandler.Format) throws {
        let lines = CollectedLines()
        logger(format, into: lines).error("first\nsecond\r\nthird", metadata: ["body": "a\nb"])
        let line = try #require(lines.all.first)
        #expect(lines.all.count == 1)
        #expect(line.filter { $0 == "\n" || $0 == "\r\n" }.count == 1)
        #expect(line.hasSuffix(#"first\nsecond\r\nthird body="a\nb""# + "\n"))
    }

    @Test func metadataIsSortedMergedAndQuotedWhenNeeded() {
        let lines = CollectedLines()
        var logger = logger(.journal, into: lines)
        logger[metadataKey: "photo"] = "abc"
        logger[metadataKey: "zone"] = "handler"
        logger.info(
            "done",
            metadata: [
                "zone": "event",
                "path": "/tmp/a b.jpg",
                "quote": "say \"hi\"",
                "empty": "",
                "list": .array(["x", "y"]),
                "eq": "a=b",
            ])
        #expect(
            lines.all == [
                #"<6>done empty="" eq="a=b" list="[x, y]" path="/tmp/a b.jpg" photo=abc quote="say \"hi\"" zone=event"#
                    + "\n"
            ])
    }

    struct DiskFull: Error, CustomStringConvertible {
        var description: String { "disk full" }
    }

    @Test func metadataProviderAndEventErrorAreIncluded() {
        let lines = CollectedLines()
        let provider = Logger.MetadataProvider { ["request": "r1"] }
        let handler = DaemonLogHandler(
            format: .journal, logLevel: .info, metadataProvider: provider, output: lines.output)
        Logger(label: "x", factory: { _ in handler }).info("hello")
        handler.log(
            event: LogEvent(
                level: .error, message: "write failed", error: DiskFull(), metadata: ["photo": "p1"],
                source: nil, file: #fileID, function: #function, line: #line
            ))
        #expect(lines.all == ["<6>hello request=r1\n", "<3>write failed error=\"disk full\" photo=p1 request=r1\n"])
    }

    @Test func levelBelowTheThresholdIsDropped() {
        let lines = CollectedLines()
        let logger = logger(.journal, level: .notice, into: lines)
        logger.info("quiet")
        logger.notice("loud")
        #expect(lines.all == ["<5>loud\n"])
    }

    @Test func journalOnlyWhenJournalStreamNamesStandardError() {
        let stderr = DaemonLogHandler.FileIdentity(device: 8, inode: 1234)
        #expect(DaemonLogHandler.Format.detect(environment: [:], standardError: stderr) == .terminal)
        #expect(
            DaemonLogHandler.Format.detect(environment: ["JOURNAL_STREAM": "8:1234"], standardError: stderr) == .journal
        )
        #expect(
            DaemonLogHandler.Format.detect(environment: ["JOURNAL_STREAM": "8:999"], standardError: stderr) == .terminal
        )
        #expect(
            DaemonLogHandler.Format.detect(environment: ["JOURNAL_STREAM": "8:1234"], standardError: nil) == .journal)
    }
}

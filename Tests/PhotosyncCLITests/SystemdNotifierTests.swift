import Foundation
import Glibc
import Logging
import PhotosyncCLI
import TestSupport
import Testing

@Suite struct SystemdNotifierTests {
    @Test func sendsEachMessageAsOneDatagramToAPath() {
        let listener = DatagramListener()
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.notifySocket])
        #expect(notifier.address == .path(listener.notifySocket))

        notifier.ready()
        notifier.status("synced 120 photos")
        notifier.watchdog()
        notifier.stopping()
        notifier.send("STATUS=custom\nERRNO=5")

        #expect(
            listener.received() == [
                "READY=1", "STATUS=synced 120 photos", "WATCHDOG=1", "STOPPING=1", "STATUS=custom\nERRNO=5",
            ])
    }

    @Test func sendsToTheAbstractNamespace() {
        let listener = DatagramListener(abstract: ())
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.notifySocket])
        #expect(listener.notifySocket.hasPrefix("@"))

        notifier.ready()
        notifier.status("polling")

        #expect(listener.received() == ["READY=1", "STATUS=polling"])
    }

    @Test func statusCannotInjectOtherFields() {
        let listener = DatagramListener()
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.notifySocket])
        notifier.status("line one\nREADY=1")
        #expect(listener.received() == ["STATUS=line one READY=1"])
    }

    @Test func withoutNotifySocketNothingHappens() {
        let notifier = SystemdNotifier(environment: [:])
        #expect(!notifier.isEnabled)
        notifier.ready()
        notifier.status("nobody listens")
    }

    @Test func sendFailureIsSwallowedAndLoggedAtDebug() {
        let directory = TemporaryDirectory()
        let capture = LogCapture()
        let notifier = SystemdNotifier(
            environment: ["NOTIFY_SOCKET": directory.missing("notify")], logger: capture.logger(level: .debug))
        notifier.ready()
        #expect(capture.output.count == 1)
        #expect(capture.text.hasPrefix("debug sd_notify failed"))
        #expect(capture.text.contains("state=READY=1"))
    }

    @Test func watchdogIntervalIsHalfOfWatchdogUsec() {
        let notifier = SystemdNotifier(environment: ["WATCHDOG_USEC": "30000000"], processID: 42)
        #expect(notifier.watchdogTimeout == .seconds(30))
        #expect(notifier.watchdogInterval == .seconds(15))
    }

    @Test func watchdogForThisProcessOnly() {
        let mine = SystemdNotifier(environment: ["WATCHDOG_USEC": "2000000", "WATCHDOG_PID": "42"], processID: 42)
        #expect(mine.watchdogInterval == .seconds(1))
        let other = SystemdNotifier(environment: ["WATCHDOG_USEC": "2000000", "WATCHDOG_PID": "43"], processID: 42)
        #expect(other.watchdogInterval == nil)
        let real = SystemdNotifier(environment: ["WATCHDOG_USEC": "2000000", "WATCHDOG_PID": "\(getpid())"])
        #expect(real.watchdogInterval == .seconds(1))
    }

    @Test(arguments: [nil, "", "0", "-5", "soon", "1.5"] as [String?])
    func noUsableWatchdogUsecMeansNoWatchdog(_ value: String?) {
        let environment = value.map { ["WATCHDOG_USEC": $0] } ?? [:]
        #expect(SystemdNotifier(environment: environment, processID: 42).watchdogInterval == nil)
    }
}

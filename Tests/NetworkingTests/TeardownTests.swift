import TestSupport
import Testing

/// `withTeardown` is what the end-to-end tests stop their servers with: it must await the
/// teardown on every way out of the body.
struct TeardownTests {
    actor Log {
        var events: [String] = []
        func add(_ event: String) { events.append(event) }
    }

    struct Failure: Error {}

    @Test func theTeardownRunsAfterTheBodyReturns() async throws {
        let log = Log()
        let value = await withTeardown(await log.add("teardown")) {
            await log.add("body")
            return 42
        }
        #expect(value == 42)
        #expect(await log.events == ["body", "teardown"])
    }

    @Test func theTeardownRunsWhenTheBodyThrows() async {
        let log = Log()
        await #expect(throws: Failure.self) {
            try await withTeardown(await log.add("teardown")) {
                await log.add("body")
                throw Failure()
            }
        }
        #expect(await log.events == ["body", "teardown"])
    }
}

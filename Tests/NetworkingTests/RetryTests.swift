import Foundation
import Networking
import Synchronization
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct RetryTests {
    @Test func retriesWithExponentialBackoffAndExactDelays() async throws {
        // GIVEN two server errors before success, and no jitter
        let clock = TestClock()
        let session = MockURLSession(responses: [.http(status: 503), .http(status: 502), .json(itemJSON)])
        // WHEN the item is requested
        let item = try await makeProvider(session, clock: clock).request(items)
        // THEN it waited 0.5 s, then 1 s, and sent three requests
        #expect(item.id == "a1")
        #expect(clock.sleeps == [.milliseconds(500), .seconds(1)])
        #expect(session.requests.count == 3)
    }

    @Test func eachRetryIsAdmittedAfterItsBackoffAndBeforeItIsSent() async throws {
        // GIVEN two server errors before success, and a caller that admits each retry
        let clock = TestClock()
        let session = MockURLSession(responses: [.http(status: 503), .http(status: 502), .json(itemJSON)])
        let admitted = Mutex<[(status: Int?, sentBefore: Int, slept: Int)]>([])
        let provider = makeProvider(session, clock: clock) { policy in
            policy.admitsRetry = { failure in
                var status: Int?
                if case .unacceptableStatus(let answer) = failure { status = answer.statusCode }
                let record = (status, session.requests.count, clock.sleeps.count)
                admitted.withLock { $0.append(record) }
            }
        }
        // WHEN the item is requested
        _ = try await provider.request(items)
        // THEN each retry was admitted once, with the failure it follows, after its backoff
        #expect(admitted.withLock { $0.map(\.status) } == [503, 502])
        #expect(admitted.withLock { $0.map(\.sentBefore) } == [1, 2])
        #expect(admitted.withLock { $0.map(\.slept) } == [1, 2])
    }

    @Test func aRetryThatIsNotAdmittedEndsTheRequest() async {
        let session = MockURLSession(responses: [.http(status: 503), .json(itemJSON)])
        let provider = makeProvider(session, clock: TestClock()) { policy in
            policy.admitsRetry = { _ throws(NetworkError) in throw .cancelled }
        }
        await #expect { try await provider.request(items) } throws: { error in
            guard case .cancelled = error as? NetworkError else { return false }
            return true
        }
        #expect(session.requests.count == 1)
    }

    @Test func jitterShortensDelaysByARandomFraction() async throws {
        let clock = TestClock()
        let session = MockURLSession(responses: [.http(status: 500), .http(status: 500), .json(itemJSON)])
        _ = try await makeProvider(session, clock: clock, random: 0.5).request(items)
        // 20 % jitter, half of it: delays are 90 % of 0.5 s and 1 s.
        #expect(clock.sleeps == [.milliseconds(450), .milliseconds(900)])
    }

    @Test func givesUpAfterMaxAttempts() async {
        let clock = TestClock()
        let session = MockURLSession(responses: [.http(status: 500)])
        await #expect(throws: NetworkError.self) { try await makeProvider(session, clock: clock).request(items) }
        #expect(session.requests.count == 4)
        #expect(clock.sleeps == [.milliseconds(500), .seconds(1), .seconds(2)])
    }

    @Test func eachDelayIsCappedAndTheTotalIsBounded() async {
        let clock = TestClock()
        let session = MockURLSession(responses: [.http(status: 500)])
        let provider = makeProvider(session, clock: clock) {
            $0.maxAttempts = 10
            $0.baseDelay = .seconds(1)
            $0.maxDelay = .seconds(3)
            $0.maxTotalDelay = .seconds(10)
        }
        await #expect(throws: NetworkError.self) { try await provider.request(items) }
        // 1 + 2 + 3 + 3 = 9; another 3 would pass 10.
        #expect(clock.sleeps == [.seconds(1), .seconds(2), .seconds(3), .seconds(3)])
    }

    @Test(arguments: [408, 429, 500, 503, 599])
    func retriesTransientStatuses(status: Int) async throws {
        let session = MockURLSession(responses: [.http(status: status), .json(itemJSON)])
        _ = try await makeProvider(session).request(items)
        #expect(session.requests.count == 2)
    }

    @Test(arguments: [400, 401, 403, 404, 422])
    func doesNotRetryOtherClientErrors(status: Int) async {
        let clock = TestClock()
        let session = MockURLSession(responses: [.http(status: status), .json(itemJSON)])
        await #expect(throws: NetworkError.self) { try await makeProvider(session, clock: clock).request(items) }
        #expect(session.requests.count == 1)
        #expect(clock.sleeps.isEmpty)
    }

    @Test func doesNotRetryPOST() async {
        let session = MockURLSession(responses: [.http(status: 503), .json(itemJSON)])
        let post = Endpoint<Item>(baseURL: api, path: "items", method: .post)
        await #expect(throws: NetworkError.self) { try await makeProvider(session).request(post) }
        #expect(session.requests.count == 1)
    }

    @Test func retriesTransientTransportErrorsOnly() async throws {
        let flaky = MockURLSession(responses: [.failure(.timedOut), .failure(.networkConnectionLost), .json(itemJSON)])
        _ = try await makeProvider(flaky).request(items)
        #expect(flaky.requests.count == 3)

        let broken = MockURLSession(responses: [.failure(.unsupportedURL), .json(itemJSON)])
        await #expect(throws: NetworkError.self) { try await makeProvider(broken).request(items) }
        #expect(broken.requests.count == 1)
    }

    @Test func honoursRetryAfterInSeconds() async throws {
        let clock = TestClock()
        let session = MockURLSession(responses: [.http(status: 429, headers: ["Retry-After": "7"]), .json(itemJSON)])
        _ = try await makeProvider(session, clock: clock).request(items)
        #expect(clock.sleeps == [.seconds(7)])
    }

    @Test func honoursRetryAfterAsAnHTTPDate() async throws {
        let clock = TestClock()
        // now is 2023-11-14 22:13:20 GMT; the server asks until 22:13:32.
        let session = MockURLSession(responses: [
            .http(status: 503, headers: ["Retry-After": "Tue, 14 Nov 2023 22:13:32 GMT"]), .json(itemJSON),
        ])
        _ = try await makeProvider(session, clock: clock).request(items)
        #expect(clock.sleeps == [.seconds(12)])
    }

    @Test func aRetryAfterLongerThanTheCapIsThrownNotWaited() async {
        let clock = TestClock()
        let session = MockURLSession(responses: [.http(status: 429, headers: ["Retry-After": "3600"]), .json(itemJSON)])
        await #expect {
            _ = try await makeProvider(session, clock: clock).request(items)
        } throws: { error in
            (error as? NetworkError)?.statusCode == 429
        }
        #expect(clock.sleeps.isEmpty)
        #expect(session.requests.count == 1)
    }

    @Test func cancellationDuringAWaitStopsAtOnceAsCancellation() async throws {
        // GIVEN a server error and a clock whose sleeps last until cancelled
        let clock = TestClock(suspendsSleeps: true)
        let session = MockURLSession(responses: [.http(status: 503), .json(itemJSON)])
        let provider = makeProvider(session, clock: clock)
        let task = Task { try await provider.request(items) }
        // WHEN the task is cancelled while it waits to retry
        var waits = clock.sleepStarted.makeAsyncIterator()
        #expect(await waits.next() == .milliseconds(500))
        task.cancel()
        // THEN it ends as cancelled, not as a failure to retry, and sends nothing more
        await #expect { try await task.value } throws: { isCancellation($0) }
        #expect(session.requests.count == 1)
    }

    @Test func cancellationBeforeSendingSendsNothing() async {
        let session = MockURLSession(responses: [.json(itemJSON)])
        let provider = makeProvider(session)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await provider.request(items)
        }
        await #expect { try await task.value } throws: { isCancellation($0) }
        #expect(session.requests.isEmpty)
    }

    @Test func aCancelledTransferSurfacesAsCancellation() async {
        let session = MockURLSession(responses: [.failure(.cancelled)])
        await #expect { try await makeProvider(session).request(items) } throws: { isCancellation($0) }
    }

    private func isCancellation(_ error: any Error) -> Bool {
        if case .cancelled = error as? NetworkError { return true }
        return false
    }

    @Test(arguments: [
        ("120", 120.0), ("0", 0), ("Tue, 14 Nov 2023 22:14:20 GMT", 60), ("Tuesday, 14-Nov-23 22:14:20 GMT", 60),
        ("Tue Nov 14 22:14:20 2023", 60),
    ])
    func parsesRetryAfter(value: String, seconds: Double) {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(RetryPolicy.retryAfter(value, now: now) == .seconds(seconds))
    }

    @Test func rejectsMalformedRetryAfter() {
        #expect(RetryPolicy.retryAfter("soon", now: Date()) == nil)
        #expect(RetryPolicy.retryAfter("-5", now: Date()) == nil)
    }
}

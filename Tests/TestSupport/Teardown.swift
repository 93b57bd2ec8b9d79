/// Runs `body`, then awaits `teardown`, whether `body` returned or threw: the `defer` a test
/// would write if `defer` could await. A server a test started is stopped before the test ends,
/// so it never outlives the test or overlaps the next one.
public func withTeardown<Result>(
    _ teardown: () async -> Void, _ body: () async throws -> Result
) async rethrows -> Result {
    let result: Result
    do {
        result = try await body()
    } catch {
        await teardown()
        throw error
    }
    await teardown()
    return result
}

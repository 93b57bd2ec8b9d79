/// Runs `body`, then awaits `teardown`, whether `body` returned or threw: the `defer` a test
/// would write if `defer` could await. A server a test started is stopped before the test ends,
/// so it never outlives the test or overlaps the next one.
///
///     let world = try await World.start(photos: 30)
///     try await withTeardown(await world.stop()) { ... }
public func withTeardown<Result, Ignored>(
    _ teardown: @autoclosure () async -> Ignored, _ body: () async throws -> Result
) async rethrows -> Result {
    let result: Result
    do {
        result = try await body()
    } catch {
        _ = await teardown()
        throw error
    }
    _ = await teardown()
    return result
}

import PhotoStore

extension DatabaseOptions {
    /// The database `run` would write, found as `run` finds it, opened to read.
    ///
    /// Only the database's setting is resolved: parsing the flags as a whole
    /// ``SettingsOptions`` and resolving every setting cost about 2 ms of a 30 ms `photosync query`.
    func openStore(
        environment: [String: String], readers: Int = 1, mapped: Bool = false, forSmallWrites: Bool = false,
        lag: Duration = .zero
    ) async throws -> PhotoStore {
        try await database(environment: environment).openExisting(
            environment: environment, readers: readers, mapped: mapped, forSmallWrites: forSmallWrites, lag: lag)
    }
}

import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A throwaway PostgreSQL 15 cluster for the tests of the PostgreSQL store: the one `scripts/test`
/// starts, or else one started once per test process on a unix socket in a temporary folder
/// (`initdb` and `pg_ctl` as the `postgres` user, which `initdb` requires; `fsync=off`, no TCP),
/// and stopped when the process exits.
/// Each test asks for a database of its own (``makeDatabase()``), so tests run side by side.
///
/// Debian's `postgresql-15` must be installed (`scripts/test` installs it); without it the tests
/// that need it fail, saying so: they never skip.
public actor PostgresTestCluster {
    /// The cluster every test shares: the one `scripts/test` started, whose socket's folder it
    /// names in `PHOTOSYNC_TEST_POSTGRES`, or, for a bare `swift test`, one of this process's own.
    public static let shared = PostgresTestCluster(
        socket: ProcessInfo.processInfo.environment["PHOTOSYNC_TEST_POSTGRES"].flatMap { $0.isEmpty ? nil : $0 })

    /// A cluster of the calling test's own, for a test that stops or restarts its server. With
    /// `addresses`, it also listens on TCP there (port 5432), trusting every client: for a test
    /// whose syncs run as hosts of their own (network namespaces).
    public static func own(listeningOn addresses: [String] = []) -> PostgresTestCluster {
        PostgresTestCluster(
            socket: nil,
            setup: Setup(addresses: addresses, rules: addresses.isEmpty ? [] : ["host all all 0.0.0.0/0 trust"]))
    }

    /// A cluster of the calling test's own as `setup` says: for a test of TLS, which needs TCP,
    /// certificates and rules of its own.
    public static func own(_ setup: Setup) -> PostgresTestCluster {
        PostgresTestCluster(socket: nil, setup: setup)
    }

    /// How a cluster of a test's own listens, and what it allows.
    public struct Setup: Sendable {
        /// TCP addresses it listens on besides its socket, at ``port``.
        public var addresses: [String]
        public var port: Int
        /// More settings, `name=value` each (`ssl=on`).
        public var settings: [String]
        /// `pg_hba.conf` lines before the default ones (which trust every local user).
        public var rules: [String]

        public init(addresses: [String] = [], port: Int = 5432, settings: [String] = [], rules: [String] = []) {
            self.addresses = addresses
            self.port = port
            self.settings = settings
            self.rules = rules
        }
    }

    /// The start of the cluster, once asked for: every test waits for the one start, which gives
    /// the folder of the cluster's socket.
    private var starting: Task<String, any Error>?
    /// The data directory of a cluster this process started: nil for the script's.
    private var data: String?

    private let setup: Setup
    /// The port in the socket's name, and on TCP.
    private nonisolated var port: Int { setup.port }

    private init(socket: String?, setup: Setup = Setup()) {
        self.setup = setup
        if let socket { starting = Task { socket } }
    }

    /// A cluster already made: a standby of another, started on `socket` from `data`.
    private init(started socket: String, data: String) {
        setup = Setup()
        self.data = data
        starting = Task { socket }
    }

    /// Why the cluster could not start, in one line.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    static let binaries = "/usr/lib/postgresql/15/bin"

    /// The one user of the cluster that logs in with a password (`scram-sha-256`), not trusted
    /// as every other is, and no superuser: for the tests of passwords and of an operator's
    /// ordinary role.
    public static let passwordUser = "photosync_operator"
    /// ``passwordUser``'s password.
    public static let password = "correct horse battery staple"

    /// A new, empty database owned by `owner` (`postgres`, or ``passwordUser``), as a
    /// `postgres://` URL on the cluster's socket, logging in as its owner.
    public func makeDatabase(owner: String = "postgres") async throws -> String {
        let socket = try await start()
        let name = "photosync_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await Self.offThePool {
            try Self.run(
                "/usr/bin/psql",
                [
                    "-h", socket, "-p", String(self.port), "-U", "postgres", "-d", "postgres", "-q", "-c",
                    "CREATE DATABASE \(name) OWNER \(owner)",
                ])
        }
        return "postgres://\(owner)@\(port == 5432 ? "" : ":\(port)")/\(name)?host=\(socket)"
    }

    /// Runs `sql` with `psql` in the database of `url` (one that ``makeDatabase()`` made), as the
    /// superuser: for a test that sets a database up the way another program would.
    public func execute(_ sql: String, in url: String) async throws {
        _ = try await query(sql, in: url)
    }

    /// Runs `sql` as ``execute(_:in:)`` does, and returns what it printed: each row on a line,
    /// its columns separated by `|` (`psql -At`).
    public func query(_ sql: String, in url: String) async throws -> String {
        let socket = try await start()
        guard let name = URLComponents(string: url)?.path.dropFirst(), !name.isEmpty else {
            throw Failure(description: "not a database of this cluster: \(url)")
        }
        let database = String(name)
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("pg-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(at: output) }
        try await Self.offThePool {
            try Self.run(
                "/usr/bin/psql",
                [
                    "-h", socket, "-p", String(self.port), "-U", "postgres", "-d", database, "-q", "-At", "-v",
                    "ON_ERROR_STOP=1", "-c", sql,
                ],
                output: output.path)
        }
        return try String(contentsOf: output, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The folder of the cluster's socket, once it has started.
    public func socketDirectory() async throws -> String { try await start() }

    private func start() async throws -> String {
        if let starting { return try await starting.value }
        let task = Task { [setup] in try await Self.startCluster(setup) }
        starting = Task { try await task.value.socket }
        let (socket, data) = try await task.value
        self.data = data
        return socket
    }

    /// Restarts the server as an operator would (`pg_ctl restart -m fast`): every connection is
    /// closed, and the server is back when this returns. Only for a cluster of the test's own.
    public func restart() async throws {
        try await control(["-m", "fast", "-w", "restart"])
    }

    /// Stops the server (`pg_ctl stop -m fast`). Only for a cluster of the test's own.
    public func stop() async throws {
        try await control(["-m", "fast", "-w", "stop"])
    }

    private func control(_ arguments: [String]) async throws {
        _ = try await start()
        guard let data else { throw Failure(description: "pg_ctl is for a cluster of the test's own") }
        try await Self.offThePool { try Self.asPostgres(Self.binaries + "/pg_ctl", ["-D", data] + arguments) }
    }

    /// A hot standby of this cluster, as an operator makes one: `pg_basebackup -R` (streaming
    /// from this cluster's socket), started on a socket of its own. Its databases are this one's,
    /// read-only, at ``url(of:)``.
    public func makeStandby() async throws -> PostgresTestCluster {
        let primary = try await start()
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("photosync-standby-\(UUID().uuidString)").path
        let (data, socket) = (folder + "/data", folder + "/socket")
        try FileManager.default.createDirectory(atPath: socket, withIntermediateDirectories: true)
        try await Self.offThePool {
            try Self.run("/bin/chown", ["-R", "postgres:postgres", folder])
            try Self.run("/bin/chmod", ["0755", folder])
            try Self.asPostgres(
                Self.binaries + "/pg_basebackup",
                [
                    "-h", primary, "-p", String(self.port), "-U", "postgres", "-D", data, "-R", "-X", "stream",
                    "--no-sync", "--checkpoint=fast",
                ])
            try Self.asPostgres(
                Self.binaries + "/pg_ctl",
                [
                    "-D", data, "-l", folder + "/log", "-w", "-o",
                    // fsync off, as the tests' clusters: a standby syncs its whole copy at its
                    // start otherwise (10 s for a small cluster here).
                    "-c listen_addresses='' -k \(socket) -c fsync=off -c max_connections=400", "start",
                ])
        }
        Self.stopAtExit(data: data, folder: folder)
        return PostgresTestCluster(started: socket, data: data)
    }

    /// `url`, a database of another cluster (this one's primary), on this cluster's socket.
    public func url(of url: String) async throws -> String {
        let socket = try await start()
        guard var components = URLComponents(string: url) else { throw Failure(description: "not a URL: \(url)") }
        components.queryItems = [URLQueryItem(name: "host", value: socket)]
        return try components.string ?? { throw Failure(description: "cannot move \(url) to \(socket)") }()
    }

    /// Dumps the database of `url` to `file` as an operator backs it up: `pg_dump -Fc`.
    public func dump(_ url: String, to file: String) async throws {
        let socket = try await start()
        let database = try Self.databaseName(url)
        try await Self.offThePool {
            try Self.run(
                "/usr/bin/pg_dump",
                ["-h", socket, "-p", String(self.port), "-U", "postgres", "-d", database, "-Fc", "-f", file])
        }
    }

    /// Restores `file`, a dump, into the empty database of `url`: `pg_restore`.
    public func restore(_ file: String, into url: String) async throws {
        let socket = try await start()
        let database = try Self.databaseName(url)
        try await Self.offThePool {
            try Self.run(
                "/usr/bin/pg_restore", ["-h", socket, "-p", String(self.port), "-U", "postgres", "-d", database, file])
        }
    }

    private static func databaseName(_ url: String) throws -> String {
        guard let name = URLComponents(string: url)?.path.dropFirst(), !name.isEmpty else {
            throw Failure(description: "not a database URL: \(url)")
        }
        return String(name)
    }

    private static func startCluster(_ setup: Setup) async throws -> (socket: String, data: String) {
        guard FileManager.default.isExecutableFile(atPath: Self.binaries + "/initdb") else {
            throw Failure(description: "no PostgreSQL 15 at \(Self.binaries): apt-get install postgresql-15")
        }
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("photosync-postgres-\(UUID().uuidString)").path
        let data = folder + "/data"
        let socket = folder + "/socket"
        try FileManager.default.createDirectory(atPath: socket, withIntermediateDirectories: true)
        try await Self.offThePool {
            try Self.run("/bin/chown", ["-R", "postgres:postgres", folder])
            try Self.run("/bin/chmod", ["0755", folder])
            try Self.asPostgres(Self.binaries + "/initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync"])
            // The first matching line decides: the setup's, then the password user's, then the
            // trust lines.
            let rules = data + "/pg_hba.conf"
            let trusted = try String(contentsOfFile: rules, encoding: .utf8)
            let lines = setup.rules + ["local all \(passwordUser) scram-sha-256"]
            try (lines.joined(separator: "\n") + "\n" + trusted).write(
                toFile: rules, atomically: false, encoding: .utf8)
            let settings = setup.settings.map { " -c \($0)" }.joined()
            try Self.asPostgres(
                Self.binaries + "/pg_ctl",
                [
                    "-D", data, "-l", folder + "/log", "-w", "-o",
                    "-c listen_addresses='\(setup.addresses.joined(separator: ","))' -c port=\(setup.port) "
                        + "-k \(socket) -c fsync=off -c synchronous_commit=off -c full_page_writes=off "
                        + "-c max_connections=400" + settings,
                    "start",
                ])
            try Self.run(
                "/usr/bin/psql",
                [
                    "-h", socket, "-p", String(setup.port), "-U", "postgres", "-d", "postgres", "-q", "-c",
                    "CREATE ROLE \(passwordUser) LOGIN PASSWORD '\(password)'",
                ])
        }
        Self.stopAtExit(data: data, folder: folder)
        return (socket, data)
    }

    /// Runs `work`, which waits for processes, on a thread of Dispatch's own: a test's task waits
    /// suspended instead of holding one of the few threads every other test needs.
    static func offThePool(_ work: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }

    static func asPostgres(_ program: String, _ arguments: [String]) throws {
        try run("/usr/sbin/runuser", ["-u", "postgres", "--", program] + arguments)
    }

    /// Runs `program` to its end, its output and errors into files: not a pipe, which the server
    /// that `pg_ctl` starts would hold open. The server lives until the test process ends, and
    /// gets no descriptor of the test process's but these (``Spawned``).
    static func run(_ program: String, _ arguments: [String], output: String = "/dev/null") throws {
        let errorFile = FileManager.default.temporaryDirectory.appendingPathComponent("pg-\(UUID().uuidString).err")
        defer { try? FileManager.default.removeItem(at: errorFile) }
        let input = try Spawned.open("/dev/null")
        let out = try Spawned.open(output, writing: true)
        let err = try Spawned.open(errorFile.path, writing: true)
        let process = try Spawned(
            program, arguments, input: input.fileDescriptor, output: out.fileDescriptor, error: err.fileDescriptor)
        for handle in [input, out, err] { try? handle.close() }
        let ending = process.waitUntilEnded()
        guard ending.status == 0, !ending.bySignal else {
            let said = (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
            let text = said.trimmingCharacters(in: .whitespacesAndNewlines)
            throw Failure(
                description: "\((program as NSString).lastPathComponent) exited with status \(ending.status): \(text)")
        }
    }

    /// The clusters stop with the test process: `pg_ctl stop -m immediate`, then their folders go.
    private static func stopAtExit(data: String, folder: String) {
        stopAtExit {
            try? PostgresTestCluster.asPostgres(
                PostgresTestCluster.binaries + "/pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"])
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    /// Runs `stop` when the test process exits, after those registered later (a pooler before
    /// the cluster it stands in front of).
    static func stopAtExit(_ stop: @escaping @Sendable () -> Void) {
        let first = stopping.withLock { stops in
            stops.insert(stop, at: 0)
            return stops.count == 1
        }
        guard first else { return }
        atexit {
            for stop in PostgresTestCluster.stopping.withLock({ $0 }) { stop() }
        }
    }

    private static let stopping = Mutex<[@Sendable () -> Void]>([])
}

/// The stores a test that runs on both is given: an SQLite file, or a database of
/// ``PostgresTestCluster``.
public enum StoreKind: String, CaseIterable, Sendable {
    case sqlite
    case postgres
}

/// A store as a test reaches it: a file, a PostgreSQL database straight, or one through
/// PgBouncer in one of the two pool modes photosync works behind (``PgBouncerTestPool``).
public enum StoreSetup: String, CaseIterable, Sendable {
    case sqlite
    case postgres
    case pgbouncerTransaction = "postgres through PgBouncer, transaction pooling"
    case pgbouncerSession = "postgres through PgBouncer, session pooling"

    public init(_ kind: StoreKind) {
        self = kind == .sqlite ? .sqlite : .postgres
    }

    public var kind: StoreKind { self == .sqlite ? .sqlite : .postgres }

    /// The PgBouncer in front of the database; nil for a store reached straight.
    public var pool: PgBouncerTestPool? {
        switch self {
        case .sqlite, .postgres: nil
        case .pgbouncerTransaction: .shared(.transaction)
        case .pgbouncerSession: .shared(.session)
        }
    }

    /// The PostgreSQL setups: straight, and through PgBouncer in each mode.
    public static let postgresRoutes: [StoreSetup] = [.postgres, .pgbouncerTransaction, .pgbouncerSession]

    /// A new, empty PostgreSQL database reached this way, owned by `owner`.
    public func makeDatabase(owner: String = "postgres") async throws -> String {
        let url = try await PostgresTestCluster.shared.makeDatabase(owner: owner)
        return try await pool?.url(through: url) ?? url
    }
}

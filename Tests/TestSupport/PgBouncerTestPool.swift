import Foundation
import Synchronization

/// Debian's PgBouncer (1.18) in front of ``PostgresTestCluster/shared``, in one pool mode: the
/// connection pooler operators put between their applications and PostgreSQL. One per mode per
/// test process, started at the first use on a unix socket in a temporary folder, as the
/// `postgres` user (PgBouncer refuses to run as root), and stopped when the process exits.
///
/// It runs as shipped, with no `ignore_startup_parameters`: what photosync sends must pass as is.
/// `scripts/test` installs `pgbouncer`; without it the tests that need it fail, saying so.
public actor PgBouncerTestPool {
    public enum Mode: String, CaseIterable, Sendable {
        /// A server connection for each transaction: consecutive transactions of one client
        /// connection run on different server connections, prepared statements do not follow.
        case transaction
        /// A server connection for each client connection, for as long as it lasts.
        case session
        /// A server connection for each statement: no transaction of several statements runs.
        case statement
    }

    private static let pools = Mutex<[Mode: PgBouncerTestPool]>([:])

    /// The pool of `mode` in front of the shared cluster.
    public static func shared(_ mode: Mode) -> PgBouncerTestPool {
        pools.withLock { pools in
            if let pool = pools[mode] { return pool }
            let pool = PgBouncerTestPool(mode: mode)
            pools[mode] = pool
            return pool
        }
    }

    public let mode: Mode
    /// The port in the socket's name (`.s.PGSQL.6432`); PgBouncer listens on no TCP port.
    public static let port = 6432
    private var starting: Task<String, any Error>?

    private init(mode: Mode) { self.mode = mode }

    /// `url`, a database of ``PostgresTestCluster/shared`` (as ``PostgresTestCluster/makeDatabase(owner:)``
    /// makes it), reached through this pool instead.
    public func url(through url: String) async throws -> String {
        let socket = try await start()
        guard var components = URLComponents(string: url) else {
            throw PostgresTestCluster.Failure(description: "not a database URL: \(url)")
        }
        components.port = Self.port
        components.queryItems = [URLQueryItem(name: "host", value: socket)]
        guard let through = components.string else {
            throw PostgresTestCluster.Failure(description: "cannot route \(url) through PgBouncer")
        }
        return through
    }

    private func start() async throws -> String {
        if let starting { return try await starting.value }
        let task = Task { [mode] in
            try await Self.startPgBouncer(mode: mode, cluster: try await PostgresTestCluster.shared.socketDirectory())
        }
        starting = task
        return try await task.value
    }

    static let binary = "/usr/sbin/pgbouncer"

    /// Starts PgBouncer and returns the folder of its socket.
    private static func startPgBouncer(mode: Mode, cluster: String) async throws -> String {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw PostgresTestCluster.Failure(description: "no PgBouncer at \(binary): apt-get install pgbouncer")
        }
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("photosync-pgbouncer-\(mode.rawValue)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // Trust, as the cluster trusts its socket's clients; the users must still be listed.
        try "\"postgres\" \"\"\n\"\(PostgresTestCluster.passwordUser)\" \"\"\n".write(
            toFile: folder + "/users.txt", atomically: false, encoding: .utf8)
        // In transaction mode fewer server connections than one sync's pool: consecutive
        // transactions of a client land on different server connections, and clients share them.
        // Every test has a database, so a pool of its own: idle server connections close soon.
        let serverConnections = mode == .transaction ? 3 : 50
        let configuration = """
            [databases]
            * = host=\(cluster) port=5432
            [pgbouncer]
            listen_addr =
            listen_port = \(port)
            unix_socket_dir = \(folder)
            auth_type = trust
            auth_file = \(folder)/users.txt
            pool_mode = \(mode.rawValue)
            default_pool_size = \(serverConnections)
            max_client_conn = 2000
            server_idle_timeout = 5
            logfile = \(folder)/pgbouncer.log
            pidfile = \(folder)/pgbouncer.pid
            """
        try configuration.write(toFile: folder + "/pgbouncer.ini", atomically: false, encoding: .utf8)
        try await PostgresTestCluster.offThePool {
            try PostgresTestCluster.run("/bin/chown", ["-R", "postgres:postgres", folder])
            try PostgresTestCluster.run("/bin/chmod", ["0755", folder])
            // -d: it forks into the background, and its child then opens the socket: a client
            // that connects before that finds no socket (seen once in a run of the contract
            // suite, every PgBouncer case failing). So the socket is waited for, here, off the
            // pool: nothing signals it but the file itself.
            try PostgresTestCluster.asPostgres(binary, ["-d", folder + "/pgbouncer.ini"])
            let socket = folder + "/.s.PGSQL.\(port)"
            for _ in 0..<1_000 where !FileManager.default.fileExists(atPath: socket) { usleep(10_000) }
            guard FileManager.default.fileExists(atPath: socket) else {
                let log = (try? String(contentsOfFile: folder + "/pgbouncer.log", encoding: .utf8)) ?? ""
                throw PostgresTestCluster.Failure(description: "PgBouncer did not listen within 10 s: \(log)")
            }
        }
        PostgresTestCluster.stopAtExit { try? Self.stop(folder: folder) }
        return folder
    }

    private static func stop(folder: String) throws {
        if let text = try? String(contentsOfFile: folder + "/pgbouncer.pid", encoding: .utf8),
            let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
        {
            // Killed: PgBouncer 1.18 was seen to outlive SIGTERM and SIGINT once its server had
            // stopped, and kept running after every test process. Nothing of it is kept.
            kill(pid, SIGKILL)
        }
        try? FileManager.default.removeItem(atPath: folder)
    }
}

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
        PostgresTestCluster(socket: nil, addresses: addresses)
    }

    /// The start of the cluster, once asked for: every test waits for the one start, which gives
    /// the folder of the cluster's socket.
    private var starting: Task<String, any Error>?
    /// The data directory of a cluster this process started: nil for the script's.
    private var data: String?

    /// The TCP addresses a cluster of this process's own listens on, besides its socket.
    private let addresses: [String]

    private init(socket: String?, addresses: [String] = []) {
        self.addresses = addresses
        if let socket { starting = Task { socket } }
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
                    "-h", socket, "-U", "postgres", "-d", "postgres", "-q", "-c",
                    "CREATE DATABASE \(name) OWNER \(owner)",
                ])
        }
        return "postgres://\(owner)@/\(name)?host=\(socket)"
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
                ["-h", socket, "-U", "postgres", "-d", database, "-q", "-At", "-v", "ON_ERROR_STOP=1", "-c", sql],
                output: output.path)
        }
        return try String(contentsOf: output, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func start() async throws -> String {
        if let starting { return try await starting.value }
        let task = Task { [addresses] in try await Self.startCluster(listeningOn: addresses) }
        starting = Task { try await task.value.socket }
        let (socket, data) = try await task.value
        self.data = data
        return socket
    }

    /// Restarts the server as an operator would (`pg_ctl restart -m fast`): every connection is
    /// closed, and the server is back when this returns. Only for a cluster of the test's own.
    public func restart() async throws {
        _ = try await start()
        guard let data else { throw Failure(description: "restart is for a cluster of the test's own") }
        try await Self.offThePool {
            try Self.asPostgres(Self.binaries + "/pg_ctl", ["-D", data, "-m", "fast", "-w", "restart"])
        }
    }

    private static func startCluster(listeningOn addresses: [String]) async throws -> (socket: String, data: String) {
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
            // The first matching line decides: the password user's comes before the trust lines.
            let rules = data + "/pg_hba.conf"
            let trusted = try String(contentsOfFile: rules, encoding: .utf8)
            let network = addresses.isEmpty ? "" : "host all all 0.0.0.0/0 trust\n"
            try ("local all \(passwordUser) scram-sha-256\n" + trusted + network).write(
                toFile: rules, atomically: false, encoding: .utf8)
            try Self.asPostgres(
                Self.binaries + "/pg_ctl",
                [
                    "-D", data, "-l", folder + "/log", "-w", "-o",
                    "-c listen_addresses='\(addresses.joined(separator: ","))' -k \(socket) -c fsync=off "
                        + "-c synchronous_commit=off -c full_page_writes=off",
                    "start",
                ])
            try Self.run(
                "/usr/bin/psql",
                [
                    "-h", socket, "-U", "postgres", "-d", "postgres", "-q", "-c",
                    "CREATE ROLE \(passwordUser) LOGIN PASSWORD '\(password)'",
                ])
        }
        Self.stopAtExit(data: data, folder: folder)
        return (socket, data)
    }

    /// Runs `work`, which waits for processes, on a thread of Dispatch's own: a test's task waits
    /// suspended instead of holding one of the few threads every other test needs.
    private static func offThePool(_ work: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }

    private static func asPostgres(_ program: String, _ arguments: [String]) throws {
        try run("/usr/sbin/runuser", ["-u", "postgres", "--", program] + arguments)
    }

    /// Runs `program` to its end, its output and errors into files: not a pipe, which the server
    /// that `pg_ctl` starts would hold open. The server lives until the test process ends, and
    /// gets no descriptor of the test process's but these (``Spawned``).
    private static func run(_ program: String, _ arguments: [String], output: String = "/dev/null") throws {
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
        let first = stopping.withLock { clusters in
            clusters.append((data, folder))
            return clusters.count == 1
        }
        guard first else { return }
        atexit {
            for (data, folder) in PostgresTestCluster.stopping.withLock({ $0 }) {
                try? PostgresTestCluster.asPostgres(
                    PostgresTestCluster.binaries + "/pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"])
                try? FileManager.default.removeItem(atPath: folder)
            }
        }
    }

    private static let stopping = Mutex<[(String, String)]>([])
}

/// The stores a test that runs on both is given: an SQLite file, or a database of
/// ``PostgresTestCluster``.
public enum StoreKind: String, CaseIterable, Sendable {
    case sqlite
    case postgres
}

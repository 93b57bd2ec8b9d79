import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Where a PostgreSQL database is, as `--database` names it, read as libpq reads a connection URI:
/// `postgres://[USER@][HOST][:PORT][/DB][?PARAM=VALUE&...]` (or `postgresql://`).
///
/// - **Where**: `HOST` a name or an address; `?host=/path/to/dir` (or a percent-encoded
///   `%2Fpath` as the host) for the unix socket in that directory. What the URL leaves out comes
///   from `PGHOST`, `PGPORT`, `PGUSER` and `PGDATABASE`, then libpq's defaults: the socket in
///   `/var/run/postgresql`, port 5432, the user this process runs as, a database named as the
///   user. `host`, `port`, `user` and `dbname` may also be given as parameters, which win over
///   the URL's own parts, as libpq's do.
/// - **TLS**: `sslmode` (``TLSMode``, libpq's six: `prefer` unless `PGSSLMODE` says otherwise),
///   `sslrootcert` (a file of CA certificates, or `system` for the system's; `PGSSLROOTCERT`,
///   else `~/.postgresql/root.crt` when it exists), `sslcert` and `sslkey` (a client certificate
///   and its key; `PGSSLCERT` and `PGSSLKEY`, else `~/.postgresql/postgresql.crt` and `.key` when
///   both exist).
/// - `pool_max_conns` (as pgx names it): how many connections a process opens at most,
///   ``connections``.
///
/// A password never comes from the URL: a URL is shown by `ps`, logs and `status`, so one with a
/// password is refused. It comes from ``PostgresPassword`` instead.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    /// How to reach the server.
    public enum Endpoint: Sendable, Equatable {
        case tcp(host: String, port: Int)
        /// The socket file itself: `DIR/.s.PGSQL.PORT`.
        case socket(path: String, port: Int)
    }

    /// TLS over TCP, as libpq's `sslmode` names it; a unix socket never uses it.
    ///
    /// As in libpq, only the two `verify-` modes promise anything about whom photosync talks
    /// to: `require` encrypts, and checks the server's certificate against a root certificate only
    /// when one is given (``PostgresLocation/rootCertificate``); `verify-ca` always checks it;
    /// `verify-full` also checks that it names the host photosync connected to.
    public enum TLSMode: String, Sendable, CaseIterable {
        /// Never TLS.
        case disable
        /// Without TLS, and with it only when the server refuses a connection without.
        case allow
        /// With TLS when the server offers it, without when it does not or the handshake fails.
        case prefer
        /// Always TLS.
        case require
        /// Always TLS, with a certificate signed by a trusted CA.
        case verifyCA = "verify-ca"
        /// Always TLS, with a certificate signed by a trusted CA, for the host connected to.
        case verifyFull = "verify-full"

        /// Whether the server's certificate is checked against the root certificates at all.
        var verifies: Bool { self == .verifyCA || self == .verifyFull }

        /// The modes in a sentence, for messages.
        static let sentence = "disable, allow, prefer, require, verify-ca or verify-full"
    }

    /// The CA certificates the server's certificate is checked against.
    public enum RootCertificate: Sendable, Equatable {
        /// A PEM file of one or more certificates.
        case file(String)
        /// The system's trusted CAs (`sslrootcert=system`).
        case system
    }

    public var user: String
    public var database: String
    public var endpoint: Endpoint
    public var tls: TLSMode
    /// What the server's certificate is checked against; nil: nothing (under `require` and the
    /// weaker modes, any certificate is taken).
    public var rootCertificate: RootCertificate?
    /// A client certificate (PEM) and its key (PEM, unencrypted), for a server that asks for one.
    public var clientCertificate: String?
    public var clientKey: String?
    /// How many connections one process opens to the server at most.
    ///
    /// More connections than the server has cores to run them do not answer more: each waits
    /// for its process's turn on a core, where the waits are long and unfair to some, rather than
    /// in the pool's queue, first come first served. On a 2-core server, `serve` at 8 had a p99 of
    /// 50-125 ms where 4 had 13-18 ms at the same throughput, and the sync took the same time.
    public var connections: Int

    /// ``connections`` unless the URL says otherwise. The sync may use four at once (a page's
    /// commit, an image batch, its writer lease's renewal and a read), so fewer are refused.
    public static let defaultConnections = 4
    public static let connectionRange = defaultConnections...100
    /// libpq's (Debian's) socket directory when neither the URL nor `PGHOST` names a host.
    public static let defaultSocketDirectory = "/var/run/postgresql"

    /// Whether `text` is meant as a PostgreSQL URL rather than a file's path.
    public static func isURL(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://")
    }

    /// Reads a URL of the forms above, completed from `environment` as libpq completes it.
    ///
    /// `fileExists` and `systemUser` are the file system and the process's user, passed in so
    /// that tests touch neither: the default certificate files under `~/.postgresql` are used
    /// only when they exist, and the user defaults to the one this process runs as.
    /// - Throws: ``PostgresLocationError`` saying what is wrong; a password in the URL is
    ///   ``PostgresLocationError/passwordInURL``.
    public init(
        parsing text: String, environment: [String: String] = [:],
        fileExists: (String) -> Bool = { FileManager.default.fileExists(atPath: $0) },
        systemUser: () -> String? = PostgresLocation.processUser
    ) throws(PostgresLocationError) {
        guard Self.isURL(text), let components = URLComponents(string: text) else {
            throw .malformed("is not a postgres:// URL")
        }
        guard components.password == nil else { throw .passwordInURL }
        var given = Given(
            user: components.user.flatMap { $0.removingPercentEncoding }, host: components.host,
            port: components.port.map(String.init),
            database: (components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path)
                .removingPercentEncoding)
        var connections = Self.defaultConnections
        for item in components.queryItems ?? [] {
            try given.read(item, connections: &connections)
        }
        try self.init(given, connections: connections, environment: environment, fileExists: fileExists)
        if user.isEmpty {
            guard let name = systemUser(), !name.isEmpty else {
                throw .malformed("names no user, and neither does PGUSER (postgres://USER@HOST/DB)")
            }
            user = name
        }
        if database.isEmpty { database = user }
    }

    /// The URL's parts as it gives them, before the environment completes them.
    private struct Given {
        var user: String?
        var host: String?
        var port: String?
        var database: String?
        var sslmode: String?
        var sslrootcert: String?
        var sslcert: String?
        var sslkey: String?

        /// Takes one parameter of the query.
        mutating func read(_ item: URLQueryItem, connections: inout Int) throws(PostgresLocationError) {
            let value = item.value ?? ""
            switch item.name {
            case "host": host = value
            case "port": port = value
            case "user": user = value
            case "dbname": database = value
            case "sslmode": sslmode = value
            case "sslrootcert": sslrootcert = value
            case "sslcert": sslcert = value
            case "sslkey": sslkey = value
            case "pool_max_conns":
                guard let count = Int(value), PostgresLocation.connectionRange.contains(count) else {
                    throw .malformed(
                        "has a pool_max_conns that is not a number from "
                            + "\(PostgresLocation.connectionRange.lowerBound) "
                            + "to \(PostgresLocation.connectionRange.upperBound)")
                }
                connections = count
            default:
                throw .malformed("has a parameter photosync does not know: \(item.name)")
            }
        }
    }

    /// The location `given` names, each part missing from it taken from `environment` (libpq's
    /// variable for it), then from libpq's default; the user and the database may stay empty,
    /// for the caller to default.
    private init(
        _ given: Given, connections: Int, environment: [String: String], fileExists: (String) -> Bool
    ) throws(PostgresLocationError) {
        let environment = LibpqEnvironment(environment)
        guard given.database.map({ !$0.contains("/") }) ?? true else {
            throw .malformed("names a database with a slash in it (postgres://USER@HOST/DB)")
        }
        endpoint = try Self.endpoint(given, environment)
        user = environment.part(given.user, "PGUSER")?.value ?? ""
        database = environment.part(given.database, "PGDATABASE")?.value ?? ""
        self.connections = connections
        rootCertificate = Self.rootCertificate(given, environment, fileExists: fileExists)
        tls = try Self.tlsMode(given, environment, rootCertificate: rootCertificate)
        (clientCertificate, clientKey) = try Self.clientIdentity(given, environment, fileExists: fileExists)
    }

    /// What libpq reads from the environment for what a URL leaves out: its `PG*` variables, and
    /// the default certificate files under `$HOME/.postgresql`.
    private struct LibpqEnvironment {
        let variables: [String: String]
        let home: String?

        init(_ variables: [String: String]) {
            self.variables = variables
            home = variables["HOME"].flatMap { $0.isEmpty ? nil : $0 }
        }

        /// The URL's `value`, else `variable`'s, with the variable it came from (nil: the URL);
        /// nil when neither gives one.
        func part(_ value: String?, _ variable: String) -> (value: String, from: String?)? {
            if let value, !value.isEmpty { return (value, nil) }
            if let value = variables[variable], !value.isEmpty { return (value, variable) }
            return nil
        }

        /// `text` said of the variable a part came `from`, or of the URL when it came from there.
        func problem(_ from: String?, _ text: String) -> PostgresLocationError {
            from.map { .environment(variable: $0, problem: text) } ?? .malformed("has " + text)
        }

        /// `~/.postgresql/NAME`, when there is a home and the file exists.
        func file(_ name: String, fileExists: (String) -> Bool) -> String? {
            home.map { ($0 as NSString).appendingPathComponent(".postgresql/" + name) }.flatMap {
                fileExists($0) ? $0 : nil
            }
        }
    }

    /// The server's socket or address and port: `host` and `port`, else `PGHOST` and `PGPORT`,
    /// else the socket in ``defaultSocketDirectory`` and 5432.
    private static func endpoint(
        _ given: Given, _ environment: LibpqEnvironment
    ) throws(PostgresLocationError) -> Endpoint {
        let port: Int
        if let (text, from) = environment.part(given.port, "PGPORT") {
            guard let number = Int(text), (1...65535).contains(number) else {
                throw environment.problem(from, "a port out of range (got '\(text)')")
            }
            port = number
        } else {
            port = 5432
        }
        let host = environment.part(given.host?.removingPercentEncoding, "PGHOST")
        let hostName = host?.value ?? Self.defaultSocketDirectory
        guard !hostName.contains(",") else {
            throw environment.problem(
                host?.from,
                "several hosts: photosync connects to one (put a pooler or a virtual address in front of several)")
        }
        return hostName.hasPrefix("/")
            ? .socket(path: hostName + (hostName.hasSuffix("/") ? "" : "/") + ".s.PGSQL.\(port)", port: port)
            : .tcp(host: hostName, port: port)
    }

    /// `sslrootcert`, else `PGSSLROOTCERT`, else `~/.postgresql/root.crt` when it exists.
    private static func rootCertificate(
        _ given: Given, _ environment: LibpqEnvironment, fileExists: (String) -> Bool
    ) -> RootCertificate? {
        if let root = environment.part(given.sslrootcert, "PGSSLROOTCERT") {
            root.value == "system" ? .system : .file(root.value)
        } else {
            environment.file("root.crt", fileExists: fileExists).map { .file($0) }
        }
    }

    /// `sslmode`, else `PGSSLMODE`, else libpq's default for `rootCertificate`; refused when the
    /// mode and the root certificate do not go together.
    private static func tlsMode(
        _ given: Given, _ environment: LibpqEnvironment, rootCertificate: RootCertificate?
    ) throws(PostgresLocationError) -> TLSMode {
        let tls: TLSMode
        if let (text, from) = environment.part(given.sslmode, "PGSSLMODE") {
            guard let mode = TLSMode(rawValue: text) else {
                throw environment.problem(from, "an sslmode other than \(TLSMode.sentence) (got '\(text)')")
            }
            tls = mode
        } else {
            // libpq 16: the system's CAs make sense only with the host name checked, and are its
            // default then.
            tls = rootCertificate == .system ? .verifyFull : .prefer
        }
        if rootCertificate == .system && tls != .verifyFull {
            throw environment.problem(
                given.sslmode == nil ? "PGSSLMODE" : nil,
                "sslrootcert=system with sslmode=\(tls.rawValue): the system's CAs vouch only for a host name, "
                    + "so they need sslmode=verify-full")
        }
        if tls.verifies && rootCertificate == nil {
            throw environment.problem(
                given.sslmode == nil ? "PGSSLMODE" : nil,
                "sslmode=\(tls.rawValue) and no root certificate to verify the server's against: give sslrootcert "
                    + "(a file of CA certificates, or system), or put it at ~/.postgresql/root.crt")
        }
        return tls
    }

    /// The client certificate and its key: `sslcert` and `sslkey` (else `PGSSLCERT` and
    /// `PGSSLKEY`), both or neither, else `~/.postgresql/postgresql.crt` and `.key` when both exist.
    private static func clientIdentity(
        _ given: Given, _ environment: LibpqEnvironment, fileExists: (String) -> Bool
    ) throws(PostgresLocationError) -> (certificate: String?, key: String?) {
        let certificate = environment.part(given.sslcert, "PGSSLCERT")
        let key = environment.part(given.sslkey, "PGSSLKEY")
        if certificate != nil || key != nil {
            guard let certificate, let key else {
                throw environment.problem(
                    certificate?.from ?? key?.from,
                    certificate == nil ? "an sslkey without an sslcert" : "an sslcert without an sslkey")
            }
            return (certificate.value, key.value)
        }
        guard let certificate = environment.file("postgresql.crt", fileExists: fileExists),
            let key = environment.file("postgresql.key", fileExists: fileExists)
        else { return (nil, nil) }
        return (certificate, key)
    }

    /// The name of the user this process runs as, as libpq defaults the user to.
    public static func processUser() -> String? {
        guard let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name else { return nil }
        return String(cString: name)
    }

    /// The URL, which never holds a password: what messages and `status` name the store by.
    /// It says everything the connection was made with, the parts the environment gave included.
    public var description: String {
        var components = URLComponents()
        components.scheme = "postgres"
        components.user = user
        components.path = "/" + database
        var items: [URLQueryItem] = []
        switch endpoint {
        case .tcp(let host, let port):
            components.host = host
            if port != 5432 { components.port = port }
        case .socket(let path, let port):
            components.host = ""
            if port != 5432 { components.port = port }
            items.append(URLQueryItem(name: "host", value: (path as NSString).deletingLastPathComponent))
        }
        if tls != .prefer { items.append(URLQueryItem(name: "sslmode", value: tls.rawValue)) }
        switch rootCertificate {
        case .file(let path): items.append(URLQueryItem(name: "sslrootcert", value: path))
        case .system: items.append(URLQueryItem(name: "sslrootcert", value: "system"))
        case nil: break
        }
        if let clientCertificate, let clientKey {
            items.append(URLQueryItem(name: "sslcert", value: clientCertificate))
            items.append(URLQueryItem(name: "sslkey", value: clientKey))
        }
        if connections != Self.defaultConnections {
            items.append(URLQueryItem(name: "pool_max_conns", value: String(connections)))
        }
        if !items.isEmpty { components.queryItems = items }
        return components.string ?? "postgres://\(user)@/\(database)"
    }
}

/// A `--database` URL photosync cannot use.
public enum PostgresLocationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The URL holds a password, which `ps` and logs would show.
    case passwordInURL
    /// Anything else, said as the rest of a sentence that starts with the URL.
    case malformed(String)
    /// A variable of libpq's that the URL leaves a part to has a value photosync cannot use.
    case environment(variable: String, problem: String)

    public var description: String {
        switch self {
        case .passwordInURL, .malformed: "the database URL \(problem)"
        case .environment(let variable, let problem): "\(variable) in the environment has \(problem)"
        }
    }

    /// What is wrong, said of the URL: the rest of a sentence that starts with it (as a setting's
    /// problem follows the setting's name).
    public var problem: String {
        switch self {
        case .passwordInURL:
            "holds a password, which ps and logs would show: remove it, and give it in "
                + "PGPASSWORD, the systemd credential database-password, or a password file (~/.pgpass, "
                + "or the file PGPASSFILE names)"
        case .malformed(let problem):
            problem
        case .environment(let variable, let problem):
            "takes \(variable) from the environment, which has \(problem)"
        }
    }
}

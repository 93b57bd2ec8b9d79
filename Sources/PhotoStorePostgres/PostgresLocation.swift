import Foundation

/// Where a PostgreSQL database is, as `--database` names it:
/// `postgres://USER@HOST[:PORT]/DB` (or `postgresql://`), with `?host=/path/to/dir` for the
/// unix socket in that directory (as libpq reads it), `sslmode=` (`disable`, `prefer`, the
/// default, or `require`) and `pool_max_conns=` (as pgx names it: how many connections a process
/// opens at most, ``connections``).
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
    public enum TLSMode: String, Sendable, CaseIterable {
        case disable, prefer, require
    }

    public var user: String
    public var database: String
    public var endpoint: Endpoint
    public var tls: TLSMode
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

    /// Whether `text` is meant as a PostgreSQL URL rather than a file's path.
    public static func isURL(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return lowered.hasPrefix("postgres://") || lowered.hasPrefix("postgresql://")
    }

    /// Reads a URL of the forms above.
    /// - Throws: ``PostgresLocationError`` saying what is wrong; a password in the URL is
    ///   ``PostgresLocationError/passwordInURL``.
    public init(parsing text: String) throws(PostgresLocationError) {
        guard Self.isURL(text), let components = URLComponents(string: text) else {
            throw .malformed("is not a postgres:// URL")
        }
        guard components.password == nil else { throw .passwordInURL }
        guard let user = components.user.flatMap({ $0.removingPercentEncoding }), !user.isEmpty else {
            throw .malformed("names no user (postgres://USER@HOST/DB)")
        }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard let database = path.removingPercentEncoding, !database.isEmpty, !database.contains("/") else {
            throw .malformed("names no database (postgres://USER@HOST/DB)")
        }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw .malformed("has a port out of range") }
        var socketDirectory: String?
        var tls = TLSMode.prefer
        var connections = Self.defaultConnections
        for item in components.queryItems ?? [] {
            switch item.name {
            case "host":
                guard let value = item.value, value.hasPrefix("/") else {
                    throw .malformed("has a host= that is not a socket directory (an absolute path)")
                }
                socketDirectory = value
            case "sslmode":
                guard let value = item.value.flatMap(TLSMode.init(rawValue:)) else {
                    throw .malformed("has an sslmode other than disable, prefer or require")
                }
                tls = value
            case "pool_max_conns":
                guard let value = item.value.flatMap({ Int($0) }), Self.connectionRange.contains(value) else {
                    throw .malformed(
                        "has a pool_max_conns that is not a number from \(Self.connectionRange.lowerBound) "
                            + "to \(Self.connectionRange.upperBound)")
                }
                connections = value
            default:
                throw .malformed("has a parameter photosync does not know: \(item.name)")
            }
        }
        if let socketDirectory {
            endpoint = .socket(path: socketDirectory + "/.s.PGSQL.\(port)", port: port)
        } else {
            guard let host = components.host, !host.isEmpty else {
                throw .malformed("names no host (postgres://USER@HOST/DB, or ?host=/socket/dir)")
            }
            endpoint = .tcp(host: host, port: port)
        }
        self.user = user
        self.database = database
        self.tls = tls
        self.connections = connections
    }

    /// The URL, which never holds a password: what messages and `status` name the store by.
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

    public var description: String { "the database URL \(problem)" }

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
        }
    }
}

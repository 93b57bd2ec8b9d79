import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PhotoStore
import PostgresNIO

#if canImport(Glibc)
    import Glibc
#endif

/// How photosync's connections to one server are made: TLS as libpq makes it (``PostgresLocation/TLSMode``),
/// and startup parameters that a connection pooler passes.
///
/// ``settle(logger:)`` makes one connection first, alone, as the pool will make each, trying
/// libpq's fallbacks in libpq's order, so that a server that cannot be reached, a login it
/// refuses or a certificate that does not check out fails at once with its reason, where the
/// pool would keep retrying in the background and end with a circuit breaker's name. What
/// worked (``Settled``) is what the pool then uses for every connection.
struct PostgresConnector: Sendable {
    let location: PostgresLocation
    let password: String?
    /// What the server shows of each connection (`pg_stat_activity`).
    let applicationName: String
    /// The TLS configuration for ``location``'s mode and certificates; nil when no connection
    /// may use TLS (`disable`, a unix socket).
    let tls: TLSConfiguration?

    /// - Throws: `StoreError.connectionMisconfigured` when a certificate or key file cannot be
    ///   read or has the wrong permissions.
    init(_ location: PostgresLocation, password: String?, applicationName: String) throws(StoreError) {
        self.location = location
        self.password = password
        self.applicationName = applicationName
        guard case .tcp = location.endpoint, location.tls != .disable else {
            tls = nil
            return
        }
        do {
            tls = try Self.tlsConfiguration(location)
        } catch {
            throw .connectionMisconfigured(path: location.description, reason: error.reason)
        }
    }

    /// How the connections are made, once one was.
    struct Settled: Sendable {
        /// Whether connections use TLS: `.require` with the configuration, or none.
        var tls: TLSConfiguration?
        /// Whether the startup packet asks the server for keepalives (``keepalives``): over TCP,
        /// unless a pooler refused them, which then means photosync is behind one.
        var keepalives: Bool
    }

    /// The server probes an idle TCP connection after 5 s, every 2 s, and drops it after 3 probes
    /// unanswered, and drops one whose answers go unacknowledged for 10 s: a host cut off from
    /// the network loses its sessions (and the locks of a transaction under way) in about 11 s,
    /// not the kernel's two hours or more. A pooler such as PgBouncer refuses them (its own
    /// `tcp_keepalive` settings do this there), and a unix socket has no use for them.
    static let keepalives = [
        ("tcp_keepalives_idle", "5"), ("tcp_keepalives_interval", "2"), ("tcp_keepalives_count", "3"),
        ("tcp_user_timeout", "10000"),
    ]

    /// Makes one connection as libpq would, and returns how: `prefer` falls back to no TLS when
    /// the server has none or its handshake fails, `allow` to TLS when the server refuses a
    /// connection without; a pooler that refuses the keepalives is connected to without them.
    /// Then checks that the connection runs transactions, which a pooler in statement mode
    /// does not.
    /// - Throws: `StoreError.unavailable` when the server cannot be reached, `.loginRefused`
    ///   when it refuses the user or the password, `.connectionMisconfigured` for TLS that does
    ///   not check out or a pooler photosync cannot work behind, `.cannotOpen` for anything else
    ///   (no such database), each with the server's or the network's reason in words.
    func settle(logger: Logger) async throws(StoreError) -> Settled {
        let tcp = if case .tcp = location.endpoint { true } else { false }
        var settled = Settled(tls: location.tls == .allow ? nil : tls, keepalives: tcp)
        // What the first way of `prefer` or `allow` met, said with the second way's failure.
        var fellBack: String?
        while true {
            do {
                try await check(try await connect(settled, logger: logger), logger: logger)
                return settled
            } catch {
                switch Self.failure(error, location: location) {
                case .poolerRefusedParameter where settled.keepalives:
                    settled.keepalives = false
                    logger.notice(
                        """
                        the database is behind a connection pooler: photosync connects to it without asking for \
                        the server's TCP keepalives (the pooler's own settings keep its connections)
                        """,
                        metadata: ["database": "\(location)"])
                case .tls where location.tls == .prefer && settled.tls != nil,
                    .noTLS where location.tls == .prefer && settled.tls != nil:
                    // libpq's `prefer`: a connection without TLS when one with it failed.
                    settled.tls = nil
                    fellBack = "with TLS: " + Self.reason(error)
                case .refusedWithoutTLS where location.tls == .allow && settled.tls == nil && tls != nil:
                    // libpq's `allow`: a connection with TLS when one without it was refused.
                    settled.tls = tls
                    fellBack = "without TLS: " + Self.reason(error)
                case .statementPooling:
                    throw StoreError.connectionMisconfigured(
                        path: location.description,
                        reason: "the connection pooler runs each statement on its own (PgBouncer's "
                            + "pool_mode = statement), where photosync's transactions cannot run: use a pool in "
                            + "transaction or session mode")
                case let failure:
                    let reason = Self.reason(error)
                    throw failure.storeError(
                        location: location, reason: fellBack.map { "\(reason) (and \($0))" } ?? reason)
                }
            }
        }
    }

    /// One connection made with `settled`, outside the pool.
    private func connect(_ settled: Settled, logger: Logger) async throws -> PostgresConnection {
        var configuration: PostgresConnection.Configuration
        switch location.endpoint {
        case .tcp(let host, let port):
            let context = try settled.tls.map { try NIOSSLContext(configuration: $0) }
            configuration = PostgresConnection.Configuration(
                host: host, port: port, username: location.user, password: password, database: location.database,
                tls: context.map { .require($0) } ?? .disable)
        case .socket(let path, _):
            configuration = PostgresConnection.Configuration(
                unixSocketPath: path, username: location.user, password: password, database: location.database)
        }
        configuration.options.connectTimeout = .seconds(10)
        configuration.options.additionalStartupParameters = startupParameters(settled)
        return try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
    }

    /// Runs a transaction on the probe's connection, then closes it: a pooler in statement
    /// mode ends the connection at `BEGIN`.
    private func check(_ connection: PostgresConnection, logger: Logger) async throws {
        do {
            try await connection.guardedQuery("BEGIN", logger: logger)
            try await connection.guardedQuery("SELECT 1", logger: logger)
            try await connection.guardedQuery("COMMIT", logger: logger)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }

    /// What every connection of the pool sends at its start: its name, and the keepalives where
    /// they are taken. Nothing else: a pooler passes only the parameters it knows, and what
    /// photosync sets for its work it sets in each transaction (``PostgresDatabase/write(_:lane:_:)``).
    func startupParameters(_ settled: Settled) -> [(String, String)] {
        [("application_name", applicationName)] + (settled.keepalives ? Self.keepalives : [])
    }

    /// The pool's configuration for connections made as `settled` says.
    func poolConfiguration(_ settled: Settled) -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        switch location.endpoint {
        case .tcp(let host, let port):
            configuration = PostgresClient.Configuration(
                host: host, port: port, username: location.user, password: password, database: location.database,
                tls: settled.tls.map { .require($0) } ?? .disable)
        case .socket(let path, _):
            configuration = PostgresClient.Configuration(
                unixSocketPath: path, username: location.user, password: password, database: location.database)
        }
        configuration.options.connectTimeout = .seconds(10)
        configuration.options.maximumConnections = location.connections
        configuration.options.additionalStartupParameters = startupParameters(settled)
        return configuration
    }

    // MARK: - TLS

    /// A certificate or key file that cannot be used, in words.
    struct FileProblem: Error {
        let reason: String
    }

    /// libpq's checks for `location`'s mode: the chain against the root certificates when they
    /// are given (always under `verify-ca` and `verify-full`), the host name under `verify-full`;
    /// the client's certificate and key when given.
    static func tlsConfiguration(_ location: PostgresLocation) throws(FileProblem) -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        switch location.rootCertificate {
        case .file(let path):
            configuration.trustRoots = .certificates(try certificates(path, "sslrootcert"))
            configuration.certificateVerification =
                location.tls == .verifyFull ? .fullVerification : .noHostnameVerification
        case .system:
            configuration.trustRoots = .default
            configuration.certificateVerification = .fullVerification
        case nil:
            configuration.certificateVerification = .none
        }
        if let certificate = location.clientCertificate, let key = location.clientKey {
            configuration.certificateChain = try certificates(certificate, "sslcert").map { .certificate($0) }
            try checkKeyPermissions(key)
            do {
                configuration.privateKey = .privateKey(try NIOSSLPrivateKey(file: key, format: .pem))
            } catch {
                throw FileProblem(reason: "sslkey \(key) is not an unencrypted PEM private key")
            }
        }
        return configuration
    }

    /// The PEM certificates of the file at `path`, which `parameter` names.
    private static func certificates(_ path: String, _ parameter: String) throws(FileProblem) -> [NIOSSLCertificate] {
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = access(path, R_OK) == 0 ? "not a file" : String(cString: strerror(errno))
            throw FileProblem(reason: "cannot read \(parameter) \(path): \(reason)")
        }
        guard let certificates = try? NIOSSLCertificate.fromPEMBytes(Array(data)), !certificates.isEmpty else {
            throw FileProblem(reason: "\(parameter) \(path) holds no PEM certificate")
        }
        return certificates
    }

    /// libpq's rule for a private key: readable by its owner alone (`0600` or less), or, owned
    /// by root, by its group too (`0640`), so that a key left readable to others is not used.
    private static func checkKeyPermissions(_ path: String) throws(FileProblem) {
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw FileProblem(reason: "cannot read sslkey \(path): \(String(cString: strerror(errno)))")
        }
        let mode = status.st_mode & 0o777
        let allowed: mode_t = status.st_uid == 0 ? 0o640 : 0o600
        guard mode & ~allowed == 0 else {
            throw FileProblem(
                reason: "sslkey \(path) may be read by others (mode \(String(mode, radix: 8))): "
                    + "make it u=rw (0600), or u=rw,g=r (0640) if root owns it")
        }
    }

    // MARK: - Failures

    /// Why a connection could not be made, as far as photosync's answer to it goes.
    enum Failure: Equatable {
        /// The network, or a server away or starting: `StoreError.unavailable`.
        case connection
        /// The server refused the user or the password.
        case login
        /// The TLS handshake failed: the certificate, the host name, or the server's refusal of
        /// the client's certificate.
        case tls
        /// The server offers no TLS where the mode requires it.
        case noTLS
        /// The server's rules (`pg_hba.conf`) refused a connection without TLS.
        case refusedWithoutTLS
        /// A pooler refused a startup parameter (PgBouncer: "unsupported startup parameter").
        case poolerRefusedParameter
        /// A pooler in statement mode, where photosync's transactions cannot run.
        case statementPooling
        /// Anything else the server said (no such database).
        case other

        func storeError(location: PostgresLocation, reason: String) -> StoreError {
            let name = location.description
            return switch self {
            case .connection: .unavailable(path: name, reason: reason)
            case .login: .loginRefused(path: name, reason: reason)
            case .tls, .noTLS, .refusedWithoutTLS, .statementPooling, .poolerRefusedParameter:
                .connectionMisconfigured(path: name, reason: reason)
            case .other: .cannotOpen(path: name, reason: reason)
            }
        }
    }

    static func failure(_ error: any Error, location: PostgresLocation) -> Failure {
        if let error = error as? PSQLError {
            if error.code == .sslUnsupported { return .noTLS }
            if let underlying = error.underlying, isTLS(underlying) { return .tls }
            if let message = error.serverInfo?[.message] {
                // PgBouncer's own errors carry no SQLSTATE of their own (08P01, a protocol
                // violation): its words tell them.
                if message.hasPrefix("unsupported startup parameter") { return .poolerRefusedParameter }
                if message.contains("not allowed in statement pooling mode") { return .statementPooling }
                switch error.serverInfo?[.sqlState] {
                case "28P01": return .login
                case "28000":
                    // pg_hba.conf's refusal names what the connection lacked: "no encryption", or
                    // a client certificate (a `cert` rule, or `clientcert=verify-ca`).
                    if message.contains("no encryption") { return .refusedWithoutTLS }
                    return message.contains("client certificate") ? .tls : .login
                default: break
                }
            }
        }
        if isTLS(error) { return .tls }
        return PostgresDatabase.failure(error) == .connection ? .connection : .other
    }

    private static func isTLS(_ error: any Error) -> Bool {
        error is NIOSSLError || error is NIOSSLExtraError || error is BoringSSLError
    }

    /// The failure in words: the server's message, or what a TLS error means, without the
    /// source paths BoringSSL's messages carry.
    static func reason(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if error.code == .sslUnsupported {
                return "the server does not offer TLS, which sslmode requires"
            }
            if let underlying = error.underlying, isTLS(underlying) { return tlsReason(underlying) }
            if let message = error.serverInfo?[.message], message.contains("client certificate") {
                return message + ": give sslcert and sslkey"
            }
        }
        if isTLS(error) { return tlsReason(error) }
        return PostgresDatabase.reason(error)
    }

    /// Why no connection could be made to a host, in the system's words: "Connection refused".
    static func connectionReason(_ error: NIOConnectionError) -> String {
        if let dns = error.dnsAError ?? error.dnsAAAAError {
            return "cannot find the host \(error.host): \(dns)"
        }
        let reasons = error.connectionErrors.map { failure in
            let text =
                if let error = failure.error as? IOError { String(cString: strerror(error.errnoCode)) } else {
                    "\(failure.error)"
                }
            return "\(text) (\(failure.target.ipAddress ?? error.host):\(error.port))"
        }
        return reasons.isEmpty ? "cannot connect to \(error.host):\(error.port)" : reasons.joined(separator: "; ")
    }

    /// What a TLS failure means for the operator.
    static func tlsReason(_ error: any Error) -> String {
        if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
            return "the server's certificate is not for the host connected to (sslmode=verify-full checks the name)"
        }
        let text = "\(error)".uppercased()
        if text.contains("CERTIFICATE_VERIFY_FAILED") {
            return "the server's certificate is not signed by a CA of sslrootcert, or has expired"
        }
        if text.contains("CERTIFICATE_REQUIRED") || text.contains("HANDSHAKE_FAILURE") && text.contains("ALERT") {
            return "the server refused the TLS handshake: it may want a client certificate (sslcert, sslkey)"
        }
        if text.contains("UNKNOWN_CA") || text.contains("BAD_CERTIFICATE") {
            return "the server refused photosync's client certificate (sslcert): not signed by a CA it trusts"
        }
        if text.contains("WRONG_VERSION_NUMBER") || text.contains("UNSUPPORTED_PROTOCOL") {
            return "the server's TLS could not be agreed on (protocol version)"
        }
        if let error = error as? NIOSSLError, case .uncleanShutdown = error {
            return "the server closed the connection during the TLS handshake"
        }
        return "the TLS handshake failed"
    }
}

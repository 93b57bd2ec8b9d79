import Foundation
import PhotoStorePostgres
import TestSupport
import Testing

@Suite("Where a PostgreSQL database is, and its password")
struct PostgresLocationTests {
    @Test func aURLNamesItsUserHostPortDatabaseAndTLS() throws {
        let location = try PostgresLocation(parsing: "postgresql://sync@db.example.com:6432/mirror?sslmode=require")
        #expect(location.user == "sync" && location.database == "mirror" && location.tls == .require)
        #expect(location.endpoint == .tcp(host: "db.example.com", port: 6432))
        #expect(location.description == "postgres://sync@db.example.com:6432/mirror?sslmode=require")
    }

    @Test func aHostParameterNamesTheSocketDirectory() throws {
        let location = try PostgresLocation(parsing: "postgres://postgres@/photos?host=/run/postgresql")
        #expect(location.endpoint == .socket(path: "/run/postgresql/.s.PGSQL.5432", port: 5432))
        #expect(location.description == "postgres://postgres@/photos?host=/run/postgresql")
    }

    @Test func aPoolSizeIsFourUnlessTheURLAsksForMoreAndNeverFewer() throws {
        #expect(try PostgresLocation(parsing: "postgres://sync@db/mirror").connections == 4)
        let location = try PostgresLocation(parsing: "postgres://sync@db/mirror?pool_max_conns=16&sslmode=require")
        #expect(location.connections == 16)
        #expect(location.description == "postgres://sync@db/mirror?sslmode=require&pool_max_conns=16")
        for count in ["3", "101", "x", ""] {
            #expect(throws: PostgresLocationError.self, "\(count)") {
                try PostgresLocation(parsing: "postgres://sync@db/mirror?pool_max_conns=\(count)")
            }
        }
    }

    @Test func aPasswordInTheURLIsRefusedSayingWhereItGoes() {
        #expect(throws: PostgresLocationError.passwordInURL) {
            try PostgresLocation(parsing: "postgres://sync:hunter2@db/mirror")
        }
        #expect(PostgresLocationError.passwordInURL.description.contains("PGPASSWORD"))
        #expect(!PostgresLocationError.passwordInURL.description.contains("hunter2"))
    }

    @Test func aURLWithUnknownParametersOrSeveralHostsIsRefused() {
        for text in [
            "postgres://sync@db/mirror?application_name=x", "mysql://sync@db/mirror", "postgres://sync@db/a/b",
            "postgres://sync@db/mirror?host=a,b", "postgres://sync@db:99999/mirror", "postgres://sync@db/m?sslmode=on",
        ] {
            #expect(throws: PostgresLocationError.self, "\(text)") { try PostgresLocation(parsing: text) }
        }
        #expect(PostgresLocation.isURL("POSTGRES://a@b/c") && !PostgresLocation.isURL("/var/lib/photos.sqlite"))
    }

    /// The file system and the process's user as a test gives them.
    static func parse(
        _ text: String, _ environment: [String: String] = [:], files: Set<String> = []
    ) throws(PostgresLocationError) -> PostgresLocation {
        try PostgresLocation(
            parsing: text, environment: environment, fileExists: { files.contains($0) }, systemUser: { "osuser" })
    }

    @Test func whatTheURLLeavesOutComesFromLibpqsVariablesThenLibpqsDefaults() throws {
        // GIVEN libpq's variables
        let environment = ["PGHOST": "db.example.com", "PGPORT": "6432", "PGUSER": "sync", "PGDATABASE": "mirror"]

        // THEN a bare URL takes each of them, and a URL's own part wins over its variable
        let bare = try Self.parse("postgres://", environment)
        #expect(bare.endpoint == .tcp(host: "db.example.com", port: 6432) && bare.user == "sync")
        #expect(bare.database == "mirror")
        #expect(bare.description == "postgres://sync@db.example.com:6432/mirror")
        let given = try Self.parse("postgresql://other@elsewhere/photos", environment)
        #expect(given.endpoint == .tcp(host: "elsewhere", port: 6432) && given.user == "other")
        #expect(given.database == "photos")
        // AND parameters name the parts as libpq's keywords do, a socket directory as the host too
        let parameters = try Self.parse("postgres://?host=/run/pg&port=5433&user=u&dbname=d", environment)
        #expect(parameters.endpoint == .socket(path: "/run/pg/.s.PGSQL.5433", port: 5433))
        #expect(parameters.user == "u" && parameters.database == "d")
        let encoded = try Self.parse("postgres://u@%2Frun%2Fpg/d")
        #expect(encoded.endpoint == .socket(path: "/run/pg/.s.PGSQL.5432", port: 5432))

        // AND without variables, libpq's defaults: Debian's socket, the process's user, a database named so
        let defaults = try Self.parse("postgres://")
        #expect(defaults.endpoint == .socket(path: "/var/run/postgresql/.s.PGSQL.5432", port: 5432))
        #expect(defaults.user == "osuser" && defaults.database == "osuser")

        // AND a variable photosync cannot use is named in the error
        #expect(throws: PostgresLocationError.environment(variable: "PGPORT", problem: "a port out of range (got 'x')"))
        {
            try Self.parse("postgres://u@h/d", ["PGPORT": "x"])
        }
    }

    @Test func tlsTakesLibpqsSixModesAndItsCertificates() throws {
        // GIVEN each mode named in the URL
        for mode in PostgresLocation.TLSMode.allCases {
            let location = try Self.parse("postgres://u@h/d?sslmode=\(mode.rawValue)&sslrootcert=/ca.pem")
            #expect(location.tls == mode && location.rootCertificate == .file("/ca.pem"))
        }
        // THEN the verifying modes need a root certificate: given, in PGSSLROOTCERT, or libpq's default file
        #expect(throws: PostgresLocationError.self) { try Self.parse("postgres://u@h/d?sslmode=verify-ca") }
        let fromVariable = try Self.parse(
            "postgres://u@h/d", ["PGSSLMODE": "verify-full", "PGSSLROOTCERT": "/etc/ca.pem"])
        #expect(fromVariable.tls == .verifyFull && fromVariable.rootCertificate == .file("/etc/ca.pem"))
        let fromHome = try Self.parse(
            "postgres://u@h/d?sslmode=verify-ca", ["HOME": "/home/u"], files: ["/home/u/.postgresql/root.crt"])
        #expect(fromHome.rootCertificate == .file("/home/u/.postgresql/root.crt"))
        // AND `system` means the system's CAs, with the host name checked, as libpq 16 has it
        let system = try Self.parse("postgres://u@h/d?sslrootcert=system")
        #expect(system.tls == .verifyFull && system.rootCertificate == .system)
        #expect(throws: PostgresLocationError.self) {
            try Self.parse("postgres://u@h/d?sslrootcert=system&sslmode=require")
        }
        // AND a client certificate comes with its key, from the URL, the variables or ~/.postgresql
        let client = try Self.parse("postgres://u@h/d?sslcert=/c.pem&sslkey=/k.pem")
        #expect(client.clientCertificate == "/c.pem" && client.clientKey == "/k.pem")
        #expect(client.description == "postgres://u@h/d?sslcert=/c.pem&sslkey=/k.pem")
        #expect(throws: PostgresLocationError.self) { try Self.parse("postgres://u@h/d?sslcert=/c.pem") }
        let home = try Self.parse(
            "postgres://u@h/d", ["HOME": "/home/u"],
            files: ["/home/u/.postgresql/postgresql.crt", "/home/u/.postgresql/postgresql.key"])
        #expect(home.clientKey == "/home/u/.postgresql/postgresql.key")
        // AND PGSSLMODE gives the mode the URL leaves out; a wrong one is refused naming it
        #expect(try Self.parse("postgres://u@h/d", ["PGSSLMODE": "require"]).tls == .require)
        #expect(try Self.parse("postgres://u@h/d?sslmode=disable", ["PGSSLMODE": "require"]).tls == .disable)
        #expect(throws: PostgresLocationError.self) { try Self.parse("postgres://u@h/d", ["PGSSLMODE": "on"]) }
    }

    @Test func thePasswordComesFromTheEnvironmentThenTheFirstMatchingLineOfThePasswordFile() throws {
        let location = try PostgresLocation(parsing: "postgres://sync@db.example.com/mirror")
        let file = """
            # host:port:database:user:password
            other.example.com:5432:*:sync:wrong
            db.example.com:*:mirror:sync:pa\\:ss
            *:*:*:*:fallback
            """
        let read: (String) -> String? = { $0 == "/home/sync/.pgpass" ? file : nil }
        #expect(PostgresPassword.find(for: location, environment: ["PGPASSWORD": "env"], readFile: read) == "env")
        #expect(PostgresPassword.find(for: location, environment: ["HOME": "/home/sync"], readFile: read) == "pa:ss")
        #expect(
            PostgresPassword.find(for: location, environment: ["PGPASSFILE": "/elsewhere"], readFile: read) == nil)
        let socket = try PostgresLocation(parsing: "postgres://other@/x?host=/run/postgresql")
        #expect(PostgresPassword.find(for: socket, environment: ["HOME": "/home/sync"], readFile: read) == "fallback")
    }
}

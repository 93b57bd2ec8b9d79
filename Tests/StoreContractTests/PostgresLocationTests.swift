import Foundation
import PhotoStorePostgres
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

    @Test func aURLWithoutUserOrDatabaseOrWithUnknownParametersIsRefused() {
        for text in [
            "postgres://db/mirror", "postgres://sync@db/", "postgres://sync@db/mirror?sslmode=verify-full",
            "postgres://sync@db/mirror?application_name=x", "postgres://sync@/mirror", "mysql://sync@db/mirror",
        ] {
            #expect(throws: PostgresLocationError.self, "\(text)") { try PostgresLocation(parsing: text) }
        }
        #expect(PostgresLocation.isURL("POSTGRES://a@b/c") && !PostgresLocation.isURL("/var/lib/photos.sqlite"))
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

import Foundation

/// The password for a ``PostgresLocation``, found as libpq finds it, never in the URL:
/// `PGPASSWORD`, else the systemd credential `database-password`
/// (`$CREDENTIALS_DIRECTORY/database-password`, `LoadCredential=database-password:FILE`), else
/// the first matching line of the password file (`PGPASSFILE`, or `~/.pgpass`): `hostname:port:database:username:password`, each field `*` or the value, with
/// `\:` and `\\` escaped. A socket's hostname is `localhost` there, as libpq writes it. Nil when
/// none is given: the server may trust the socket's peer, or a certificate.
///
/// The environment and the file system are passed in, so that tests touch neither.
public enum PostgresPassword {
    /// The systemd credential's name: `LoadCredential=database-password:/path/to/file`.
    public static let credentialName = "database-password"

    public static func find(
        for location: PostgresLocation, environment: [String: String],
        readFile: (String) -> String? = { try? String(contentsOfFile: $0, encoding: .utf8) }
    ) -> String? {
        if let password = environment["PGPASSWORD"], !password.isEmpty { return password }
        if let directory = environment["CREDENTIALS_DIRECTORY"], !directory.isEmpty,
            let text = readFile((directory as NSString).appendingPathComponent(credentialName))
        {
            // A file's last line break is not part of the password.
            return text.hasSuffix("\n") ? String(text.dropLast()) : text
        }
        let file =
            environment["PGPASSFILE"]
            ?? environment["HOME"].map { ($0 as NSString).appendingPathComponent(".pgpass") }
        guard let file, let text = readFile(file) else { return nil }
        let (host, port): (String, Int) =
            switch location.endpoint {
            case .tcp(let host, let port): (host, port)
            case .socket(_, let port): ("localhost", port)
            }
        let wanted = [host, String(port), location.database, location.user]
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            let fields = Self.fields(of: String(line))
            guard fields.count == 5 else { continue }
            if zip(fields.prefix(4), wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
        }
        return nil
    }

    /// A line's colon-separated fields, with `\:` and `\\` read as the characters they escape.
    static func fields(of line: String) -> [String] {
        var fields: [String] = []
        var field = ""
        var escaped = false
        for character in line {
            if escaped {
                field.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":" {
                fields.append(field)
                field = ""
            } else {
                field.append(character)
            }
        }
        fields.append(field)
        return fields
    }
}

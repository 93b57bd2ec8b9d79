import Foundation

/// A statement of the store's policy, written once for both databases: SQL text with its values
/// kept apart, which each driver renders in its own dialect (``rendered(_:)``): `?` or `$1`, and
/// the few words the two spell differently (``StringInterpolation/appendInterpolation(sqlite:postgres:)``).
///
/// Values are bound, never spliced into the text, except the store's fixed words
/// (``StringInterpolation/appendInterpolation(literal:)``), which partial indexes need to see.
package struct SQLStatement: Sendable, Equatable, ExpressibleByStringInterpolation {
    package enum Fragment: Sendable, Equatable {
        case sql(String)
        case value(MirrorValue)
        /// A parenthesized list of values, for `IN`.
        case list([MirrorValue])
        case dialect(sqlite: String, postgres: String)
    }

    package private(set) var fragments: [Fragment]

    package init(fragments: [Fragment]) {
        self.fragments = fragments
    }

    package init(stringLiteral text: String) {
        fragments = [.sql(text)]
    }

    package init(stringInterpolation: StringInterpolation) {
        fragments = stringInterpolation.fragments
    }

    package struct StringInterpolation: StringInterpolationProtocol {
        var fragments: [Fragment] = []

        package init(literalCapacity: Int, interpolationCount: Int) {
            fragments.reserveCapacity(2 * interpolationCount + 1)
        }

        package mutating func appendLiteral(_ literal: String) { fragments.append(.sql(literal)) }
        package mutating func appendInterpolation(_ value: String) { fragments.append(.value(.text(value))) }
        package mutating func appendInterpolation(_ value: Int64) { fragments.append(.value(.integer(value))) }
        package mutating func appendInterpolation(_ value: Int) { fragments.append(.value(.integer(Int64(value)))) }
        package mutating func appendInterpolation(_ value: Bool) { fragments.append(.value(.boolean(value))) }
        package mutating func appendInterpolation(_ value: Date) { fragments.append(.value(.date(value))) }
        package mutating func appendInterpolation(_ value: Data) { fragments.append(.value(.bytes(value))) }

        package mutating func appendInterpolation(_ value: String?) {
            fragments.append(.value(value.map(MirrorValue.text) ?? .null))
        }

        package mutating func appendInterpolation(_ value: Int64?) {
            fragments.append(.value(value.map(MirrorValue.integer) ?? .null))
        }

        package mutating func appendInterpolation(_ value: Date?) {
            fragments.append(.value(value.map(MirrorValue.date) ?? .null))
        }

        /// `(v1, v2, ...)`, each bound: `photo_id IN \(list: ids)`. An empty list is `(NULL)`,
        /// which `IN` matches nothing with (and `NOT IN` nothing either: do not use it there).
        package mutating func appendInterpolation(list values: [String]) {
            fragments.append(.list(values.map(MirrorValue.text)))
        }

        /// Another statement's text and values, in place: a clause that several statements share.
        package mutating func appendInterpolation(sql statement: SQLStatement) {
            fragments += statement.fragments
        }

        /// One of the store's fixed words as a literal (``StoredWord``).
        package mutating func appendInterpolation(literal word: some StoredWord) {
            fragments.append(.sql(word.sqlLiteral))
        }

        /// Text spelled differently by the two databases: `COLLATE "C"` on PostgreSQL, where
        /// SQLite's text order is already its bytes', say.
        package mutating func appendInterpolation(sqlite: String, postgres: String) {
            fragments.append(.dialect(sqlite: sqlite, postgres: postgres))
        }
    }
}

/// The two databases' ways of writing a statement.
package enum SQLDialect: Sendable {
    /// `?` for each value.
    case sqlite
    /// `$1`, `$2`, ... for the values in order.
    case postgres
}

extension SQLStatement {
    /// The statement's text in `dialect`, with its values in the order of their placeholders.
    package func rendered(_ dialect: SQLDialect) -> (sql: String, values: [MirrorValue]) {
        var (sql, values) = ("", [MirrorValue]())
        func placeholder(_ value: MirrorValue) {
            values.append(value)
            sql += dialect == .sqlite ? "?" : "$\(values.count)"
        }
        for fragment in fragments {
            switch fragment {
            case .sql(let text): sql += text
            case .value(let value): placeholder(value)
            case .list(let list) where list.isEmpty: sql += "(NULL)"
            case .list(let list):
                sql += "("
                for (index, value) in list.enumerated() {
                    if index > 0 { sql += ", " }
                    placeholder(value)
                }
                sql += ")"
            case .dialect(let sqlite, let postgres): sql += dialect == .sqlite ? sqlite : postgres
            }
        }
        return (sql, values)
    }
}

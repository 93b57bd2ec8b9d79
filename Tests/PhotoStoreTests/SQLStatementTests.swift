import Foundation
import Testing

@testable import PhotoStore

@Suite("The policy's statements, in each database's dialect")
struct SQLStatementTests {
    let date = Date(timeIntervalSince1970: 1_700_000_000)

    var statement: SQLStatement {
        """
        SELECT id FROM photo WHERE user = \("ann") AND id IN \(list: ["a", "b"]) AND status = \(literal: ImageStatus.stored)
        AND sequence > \(Int64(7)) AND at < \(date) ORDER BY id\(sqlite: "", postgres: #" COLLATE "C""#) LIMIT \(30)
        """
    }

    @Test func sqliteBindsEachValueToAQuestionMark() {
        let (sql, values) = statement.rendered(.sqlite)
        #expect(
            sql == """
                SELECT id FROM photo WHERE user = ? AND id IN (?, ?) AND status = 'stored'
                AND sequence > ? AND at < ? ORDER BY id LIMIT ?
                """)
        #expect(values == [.text("ann"), .text("a"), .text("b"), .integer(7), .date(date), .integer(30)])
    }

    @Test func postgresNumbersItsPlaceholdersInOrder() {
        let (sql, values) = statement.rendered(.postgres)
        #expect(
            sql == """
                SELECT id FROM photo WHERE user = $1 AND id IN ($2, $3) AND status = 'stored'
                AND sequence > $4 AND at < $5 ORDER BY id COLLATE "C" LIMIT $6
                """)
        #expect(values == [.text("ann"), .text("a"), .text("b"), .integer(7), .date(date), .integer(30)])
    }

    @Test func anEmptyListMatchesNothingInsteadOfBreakingTheStatement() {
        let empty: SQLStatement = "SELECT id FROM photo WHERE id IN \(list: [])"
        #expect(empty.rendered(.sqlite).sql == "SELECT id FROM photo WHERE id IN (NULL)")
        #expect(empty.rendered(.postgres).values.isEmpty)
    }

    @Test func aValueIsNeverWrittenIntoTheText() {
        let hostile = "'; DROP TABLE photo; --"
        let (sql, values) = ("SELECT id FROM photo WHERE id = \(hostile)" as SQLStatement).rendered(.postgres)
        #expect(sql == "SELECT id FROM photo WHERE id = $1" && values == [.text(hostile)])
    }
}

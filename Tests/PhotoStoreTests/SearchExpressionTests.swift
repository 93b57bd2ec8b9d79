import Foundation
import Testing

@testable import PhotoStore

@Suite("The search syntax, read once for every store")
struct SearchExpressionTests {
    static func term(_ text: String, prefix: Bool = false) -> SearchExpression {
        .term(SearchTerm(text, prefix: prefix))
    }

    @Test("NOT binds tightest, then AND (or words side by side), then OR, as FTS5 reads them")
    func precedence() throws {
        #expect(try SearchExpression.parse("lake") == Self.term("lake"))
        #expect(
            try SearchExpression.parse("a b OR c") == .or([.and([Self.term("a"), Self.term("b")]), Self.term("c")]))
        #expect(
            try SearchExpression.parse("a AND b NOT c") == .and([Self.term("a"), .not(Self.term("b"), Self.term("c"))]))
        #expect(
            try SearchExpression.parse("(a OR b) c") == .and([.or([Self.term("a"), Self.term("b")]), Self.term("c")]))
        #expect(
            try SearchExpression.parse("moun* \"lake sh\"*")
                == .and([Self.term("moun", prefix: true), Self.term("lake sh", prefix: true)]))
        #expect(try SearchExpression.parse("\"say \"\"cheese\"\"\"") == Self.term("say \"cheese\""))
        // Lower case is a word, as FTS5 reads it.
        #expect(
            try SearchExpression.parse("cats and dogs")
                == .and([Self.term("cats"), Self.term("and"), Self.term("dogs")]))
    }

    @Test("punctuation is part of a word, whose words are a phrase; a term without any is left out")
    func punctuation() throws {
        #expect(try SearchExpression.parse("dog's")?.wantedTerms.map(\.words) == [["dog", "s"]])
        #expect(try SearchExpression.parse("black-and-white")?.wantedTerms.map(\.words) == [["black", "and", "white"]])
        #expect(try SearchExpression.parse("black & white") == .and([Self.term("black"), Self.term("white")]))
        #expect(try SearchExpression.parse("- \"...\"") == nil, "nothing to look for: no photo matches")
        #expect(try SearchExpression.parse("dog NOT -") == Self.term("dog"))
        #expect(try SearchExpression.parse("- NOT dog") == nil, "nothing wanted: not every photo without dogs")
        #expect(try SearchExpression.parse("- OR dog") == Self.term("dog"))
    }

    @Test("text the syntax does not allow is an invalid search, naming the text")
    func invalid() {
        for text in [
            "", "  ", "\"open", "NOT lake", "lake OR", "(lake", "lake)", "*", "mo*un", "AND", "\"\"", "a OR OR b",
        ] {
            #expect(throws: StoreError.invalidSearch(text), "\(text)") { try SearchExpression.parse(text) }
        }
    }

    @Test("parentheses nest 32 deep, no deeper: a client's search cannot overflow the stack")
    func nesting() throws {
        let nested = { (depth: Int) in
            String(repeating: "(", count: depth) + "lake" + String(repeating: ")", count: depth)
        }
        #expect(try SearchExpression.parse(nested(32)) == .term(SearchTerm("lake")))
        #expect(throws: StoreError.invalidSearch(nested(33))) { try SearchExpression.parse(nested(33)) }
        let flood = String(repeating: "(", count: 80_000)
        #expect(throws: StoreError.invalidSearch(flood)) { try SearchExpression.parse(flood) }
    }

    @Test("the wanted terms: each once, in order, none under a NOT")
    func wantedTerms() throws {
        let expression = try #require(try SearchExpression.parse("dog (cat OR dog) NOT puppy OR \"black dog\""))
        #expect(expression.wantedTerms.map(\.text) == ["dog", "cat", "black dog"])
    }

    @Test("words as FTS5's unicode61 splits them: letters and digits, without case or Latin diacritics")
    func words() {
        #expect(SearchWords.words(of: "A Mountain-Lake, in Zürich!") == ["a", "mountain", "lake", "in", "zurich"])
        #expect(SearchWords.words(of: "dog’s 9:10 e-mc2 wow🤩ok") == ["dog", "s", "9", "10", "e", "mc2", "wow", "ok"])
        #expect(
            SearchWords.words(of: "Łódź Straße København ǖ Mu\u{304}sa") == [
                "łodz", "straße", "københavn", "u", "musa",
            ])
        #expect(SearchWords.words(of: "Ω İstanbul 東京タワー") == ["ω", "istanbul", "東京タワー"])
        #expect(SearchWords.words(of: "  ,.- ").isEmpty)
    }
}

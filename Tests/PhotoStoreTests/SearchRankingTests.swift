import Foundation
import Testing

@testable import PhotoStore

@Suite("The ranking of a search, from the matches' facts alone")
struct SearchRankingTests {
    /// A match keyed by `key`, created `created` seconds after 2020 (nil: no date), stored
    /// `sequence`-th, with these fields.
    static func match(
        _ key: String, created: TimeInterval? = 0, sequence: Int64 = 1, _ document: [SearchField: String]
    ) -> SearchMatch<String> {
        SearchMatch(
            key: key, createdAt: created.map { Date(timeIntervalSince1970: 1_577_836_800 + $0) }, sequence: sequence,
            document: document)
    }

    static func ranked(_ text: String, _ matches: [SearchMatch<String>]) throws -> [String] {
        SearchRanking(try #require(try SearchExpression.parse(text))).ranked(matches)
    }

    @Test("a word in the description counts more than in a tag, and a tag more than in the name")
    func fieldWeights() throws {
        // Every field as long as its average, so that the weights alone decide; the photo
        // stored last first if they did not.
        let matches = [
            Self.match(
                "name", sequence: 3, [.description: "a green park", .tags: "a green park", .userName: "dog a b"]),
            Self.match(
                "tag", sequence: 2, [.description: "a green park", .tags: "dog green park", .userName: "a b c"]),
            Self.match(
                "description", sequence: 1, [.description: "a dog park", .tags: "a green park", .userName: "a b c"]),
        ]
        #expect(try Self.ranked("dog", matches) == ["description", "tag", "name"])
    }

    @Test("more mentions rank higher, saturating; a longer field weighs each one less")
    func frequencyAndLength() throws {
        let matches = [
            Self.match("once", sequence: 1, [.description: "a dog"]),
            Self.match("thrice", sequence: 2, [.description: "dog dog dog"]),
            Self.match("long", sequence: 3, [.description: "a dog in a very long description of a garden at noon"]),
        ]
        #expect(try Self.ranked("dog", matches) == ["thrice", "once", "long"])
        // Saturation: each word three times beats one word eight times and the other once (nine
        // mentions against six, in as many words).
        let balanced = [
            Self.match("eight and one", sequence: 2, [.description: "dog dog dog dog dog dog dog dog cat"]),
            Self.match("three and three", sequence: 1, [.description: "dog dog dog cat cat cat x x x"]),
        ]
        #expect(try Self.ranked("dog cat", balanced) == ["three and three", "eight and one"])
    }

    @Test("a photo with more of an OR's terms comes first, then the rarer term among the matches")
    func orTermsAndRarity() throws {
        let matches = [
            Self.match("dog1", sequence: 1, [.description: "dog dog dog dog"]),
            Self.match("dog2", sequence: 2, [.description: "a dog"]),
            Self.match("dog3", sequence: 3, [.description: "the dog"]),
            Self.match("cat", sequence: 4, [.description: "a cat"]),
            Self.match("both", sequence: 5, [.tags: "cat", .userName: "dog"]),
        ]
        let ranked = try Self.ranked("dog OR cat", matches)
        #expect(ranked.first == "both", "both words, however weakly")
        #expect(ranked[1] == "cat", "cat is in one match in four, dog in three: the rarer word weighs more")
        #expect(Set(ranked.dropFirst(2)) == ["dog1", "dog2", "dog3"])
        // NOT's terms are not ranked: only whether a photo has them, which the store decided.
        #expect(try Self.ranked("dog NOT cat", [matches[0], matches[1]]) == ["dog1", "dog2"])
    }

    @Test("phrases and prefixes count their occurrences as the stores match them")
    func phrasesAndPrefixes() throws {
        let matches = [
            Self.match("split", sequence: 1, [.description: "black cat, dog"]),
            Self.match("phrase", sequence: 2, [.description: "a black dog, black dogs"]),
        ]
        #expect(try Self.ranked("\"black dog\"", matches).first == "phrase")
        #expect(try Self.ranked("\"black do\"*", matches).first == "phrase")
        #expect(try Self.ranked("dog*", matches).first == "phrase", "dog and dogs")
        #expect(try Self.ranked("dog's", [Self.match("s", [.altDescription: "a dog's face"])]) == ["s"])
    }

    @Test("ties go newest first, undated last, then the photo stored last; the matches' order changes nothing")
    func ties() throws {
        let same: [SearchField: String] = [.description: "a dog"]
        let matches = [
            Self.match("old", created: 10, sequence: 1, same),
            Self.match("undated", created: nil, sequence: 5, same),
            Self.match("new", created: 20, sequence: 2, same),
            Self.match("new, stored later", created: 20, sequence: 3, same),
        ]
        let expected = ["new, stored later", "new", "old", "undated"]
        #expect(try Self.ranked("dog", matches) == expected)
        #expect(try Self.ranked("dog", matches.reversed()) == expected)
        // The statistics are counts: a shuffled list of many matches ranks the same.
        var many = (0..<300).map { index in
            Self.match(
                "m\(index)", created: Double(index % 7), sequence: Int64(index),
                [
                    .description: String(repeating: "dog ", count: index % 5 + 1)
                        + String(repeating: "x ", count: index % 11),
                    .tags: index % 3 == 0 ? "dog cat" : "cat",
                ])
        }
        let first = try Self.ranked("dog OR cat", many)
        var generator = SeededGenerator(seed: 7)
        many.shuffle(using: &generator)
        #expect(try Self.ranked("dog OR cat", many) == first)
    }
}

/// A reproducible shuffle.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state
    }
}

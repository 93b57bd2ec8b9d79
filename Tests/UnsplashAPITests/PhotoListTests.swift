import Foundation
import Networking
import TestSupport
import Testing

@testable import UnsplashAPI

/// A real page of the feed, with one element spoiled the way a broken API would spoil it.
private func realPage(spoiling index: Int, _ spoil: (inout [String: JSONValue]) -> Void) throws -> Data {
    guard case .array(var elements) = try JSONDecoder().decode(JSONValue.self, from: Fixture.page1.data),
        case .object(var object) = elements[index]
    else { throw CocoaError(.coderReadCorrupt) }
    spoil(&object)
    elements[index] = .object(object)
    return try JSONEncoder().encode(JSONValue.array(elements))
}

/// The two ways a list is decoded: from a response body, as ``Provider`` does, keeping each
/// element's text; and through a `Decoder`, as when the list is nested in another response.
enum ListDecoding: String, CaseIterable, CustomTestStringConvertible {
    case body, decoder

    func decode(_ data: Data) throws -> PhotoList {
        switch self {
        case .body: try PhotoList(body: data, decoder: JSONDecoder())
        case .decoder: try JSONDecoder().decode(PhotoList.self, from: data)
        }
    }

    var testDescription: String { rawValue }
}

@Suite struct PhotoListTests {
    @Test(arguments: ListDecoding.allCases)
    func aRealPageDecodesWhole(_ decoding: ListDecoding) throws {
        let list = try decoding.decode(Fixture.page1.data)
        #expect(list.photos.count == 10 && list.rejected.isEmpty)
        #expect(list.photos.map(\.id) == (try JSONDecoder().decode([Photo].self, from: Fixture.page1.data)).map(\.id))
    }

    @Test func fromABodyEachPhotoKeepsItsTextExactlyAsSent() throws {
        let page = try Fixture.page1.data
        let list = try PhotoList(body: page, decoder: JSONDecoder())
        let text = String(decoding: page, as: UTF8.self)
        var searchFrom = text.startIndex
        for photo in list.photos {
            // Each photo's text is a piece of the page, in order, from its `{` to its `}`.
            let own = String(decoding: photo.json, as: UTF8.self)
            let found = try #require(text.range(of: own, range: searchFrom..<text.endIndex))
            searchFrom = found.upperBound
            #expect(own.hasPrefix("{") && own.hasSuffix("}"))
            let object = try JSONDecoder().decode(JSONValue.self, from: photo.json)
            #expect(object["id"]?.string == photo.id)
        }
    }

    @Test(arguments: ListDecoding.allCases)
    func anElementWithoutAnIdIsRejectedAndTheOthersDecode(_ decoding: ListDecoding) throws {
        let all = try JSONDecoder().decode([Photo].self, from: Fixture.page1.data).map(\.id)
        let data = try realPage(spoiling: 3) { $0["id"] = nil }

        let list = try decoding.decode(data)

        #expect(list.photos.map(\.id) == all.enumerated().filter { $0.offset != 3 }.map(\.element))
        let rejected = try #require(list.rejected.first)
        #expect(list.rejected.count == 1 && rejected.index == 3)
        #expect(rejected.reason == "\"id\" is missing" && rejected.photoID == nil)
        // The element is kept whole: its other fields are all there.
        let json = try JSONDecoder().decode(JSONValue.self, from: rejected.json)
        #expect(json["urls"]?["regular"]?.string?.hasPrefix("https://images.unsplash.com/") == true)
    }

    @Test(arguments: ListDecoding.allCases)
    func anEmptyIdAWrongTypeAndANonObjectAreRejectedWithTheirReasons(_ decoding: ListDecoding) throws {
        var data = try realPage(spoiling: 0) { $0["id"] = .string("") }
        var elements = try JSONDecoder().decode([JSONValue].self, from: data)
        if case .object(var object) = elements[1] {
            object["user"] = .object(["name": .int(7)])
            elements[1] = .object(object)
        }
        if case .object(var object) = elements[2] {
            object["width"] = .int(-1)
            elements[2] = .object(object)
        }
        elements.append(.string("not a photo"))
        data = try JSONEncoder().encode(elements)

        let list = try decoding.decode(data)

        #expect(
            list.rejected.map(\.reason) == [
                "\"id\" is empty", "\"user.name\" is not String", "\"width\" is negative (-1)", "not a JSON object",
            ])
        #expect(list.rejected.map(\.index) == [0, 1, 2, 10])
        #expect(list.rejected.map(\.photoID) == [nil, elements[1]["id"]?.string, elements[2]["id"]?.string, nil])
        #expect(list.photos.count == 7)
    }

    @Test(arguments: ListDecoding.allCases)
    func aBodyThatIsNotAnArrayStillFails(_ decoding: ListDecoding) {
        #expect(throws: DecodingError.self) { try decoding.decode(Data(#"{"errors":["x"]}"#.utf8)) }
        #expect(throws: DecodingError.self) { try decoding.decode(Data(#"[{"id":"a"},"#.utf8)) }
        #expect(throws: DecodingError.self) { try decoding.decode(Data("".utf8)) }
    }

    @Test func anElementThatIsNotUTF8IsRejectedAndTheOthersDecode() throws {
        var data = Data(#"[{"id":"a","description":"ok"},{"id":"b","description":"x"#.utf8)
        data.append(contentsOf: [0xC3, 0x28])  // an invalid two-byte sequence
        data.append(contentsOf: Data(#""}]"#.utf8))

        let list = try PhotoList(body: data, decoder: JSONDecoder())

        #expect(list.photos.map(\.id) == ["a"])
        #expect(list.rejected.map(\.reason) == ["not valid UTF-8"])
        #expect(String(validating: try #require(list.rejected.first).json, as: UTF8.self) != nil)
    }
}

@Suite struct JSONTextTests {
    @Test func findsEachElementWithStringsEscapesAndNestingInside() {
        let text = #" [ {"a": "x,]\"}", "b": [1, {"c": 2}]} ,"s\\",  -1.5e3 ,null,[[]] , {} ] "#
        let data = Data(text.utf8)
        let elements = JSONSpans.arrayElements(of: data).map { String(decoding: data[$0], as: UTF8.self) }
        #expect(elements == [#"{"a": "x,]\"}", "b": [1, {"c": 2}]}"#, #""s\\""#, "-1.5e3", "null", "[[]]", "{}"])
    }

    @Test func aQuoteClosesAStringOnlyAfterAnEvenRunOfBackslashes() {
        let text = #"["\\", "a\\\"b\\\\", "\\\\\\\"]", "unterminated \"]"#
        let data = Data(text.utf8)
        let elements = JSONSpans.arrayElements(of: data).map { String(decoding: data[$0], as: UTF8.self) }
        #expect(elements == [#""\\""#, #""a\\\"b\\\\""#, #""\\\\\\\"]""#, #""unterminated \"]"#])
    }

    @Test func anEmptyArrayHasNoElements() {
        #expect(JSONSpans.arrayElements(of: Data("[ ]".utf8)).isEmpty)
        #expect(JSONSpans.arrayElements(of: Data("[]".utf8)).isEmpty)
    }

    @Test func findsATopLevelMemberWhateverComesBeforeIt() throws {
        let text =
            #"{"total": 3, "note": "\"results\": [0]", "nested": {"results": [1]}, "res\u0075lts" : [ {"id": "a"} ] }"#
        let data = Data(text.utf8)
        let range = try #require(JSONSpans.member("results", of: data))
        #expect(String(decoding: data[range], as: UTF8.self) == #"[ {"id": "a"} ]"#)
        #expect(JSONSpans.member("total", of: data).map { String(decoding: data[$0], as: UTF8.self) } == "3")
        #expect(JSONSpans.member("missing", of: data) == nil)
        #expect(JSONSpans.member("results", of: Data("[1]".utf8)) == nil)
    }

    @Test func findsSeveralMembersInOnePassAndListsEveryMemberOfASlice() throws {
        let whole = Data(#"x{"note": "\"links\": 0", "us\u0065r": {"links": 1}, "links" : [2], "user": 3}"#.utf8)
        let json = whole[1...]
        let text = { (range: Range<Data.Index>?) in range.map { String(decoding: json[$0], as: UTF8.self) } }

        // The first member of each name, escapes decoded; nil for one the object lacks
        let found = JSONSpans.members(["links", "sponsorship", "user"], of: json)
        #expect(found.map(text) == ["[2]", nil, #"{"links": 1}"#])
        #expect(JSONSpans.members(["links"], of: Data("[1]".utf8)) == [nil])

        // Every member, name and value, in order, as indices of the slice
        let members = JSONSpans.members(of: json)
        #expect(members.map { text($0.name) } == [#""note""#, #""us\u0065r""#, #""links""#, #""user""#])
        #expect(members.map { text($0.value) } == [#""\"links\": 0""#, #"{"links": 1}"#, "[2]", "3"])
        #expect(JSONSpans.members(of: Data("{}".utf8)).isEmpty)
    }

    @Test func replacingRewritesEachSpanInPlaceWhateverTheEditsOrder() throws {
        let whole = Data(#"x{"a": 1, "b": [2, 3], "c": "d"}"#.utf8)
        let json = whole[1...]
        let a = try #require(JSONSpans.member("a", of: json))
        let c = try #require(JSONSpans.member("c", of: json))
        let second = try #require(JSONSpans.member("b", of: json).map { JSONSpans.arrayElements(of: json[$0])[1] })
        let edits = [(c, Data("null".utf8)), (a, Data(#"{"e": 1}"#.utf8)), (second, Data())]
        let replaced = String(decoding: JSONSpans.replacing(edits, in: json), as: UTF8.self)
        #expect(replaced == #"{"a": {"e": 1}, "b": [2, ], "c": null}"#)
        #expect(JSONSpans.replacing([], in: json) == json, "no edit: the text as it was")
    }

    @Test func rangesAreIndicesOfTheDataGivenEvenASlice() {
        let whole = Data(#"xx["a","b"]"#.utf8)
        let slice = whole[2...]
        #expect(
            JSONSpans.arrayElements(of: slice).map { String(decoding: slice[$0], as: UTF8.self) } == [#""a""#, #""b""#])
    }
}

@Suite struct CursorTests {
    let api = UnsplashAPI(baseURL: URL(string: "http://127.0.0.1:8080")!, accessKey: "K")

    @Test func aNextLinkIsStoredAsPathAndQuery() throws {
        let cursor = try api.cursor(
            for: URL(string: "http://127.0.0.1:8080/photos?order_by=latest&page=2&per_page=30")!)
        #expect(cursor == "/photos?order_by=latest&page=2&per_page=30")
    }

    @Test func aCursorResolvesAgainstTheConfiguredBase() throws {
        let endpoint = try UnsplashAPI(accessKey: "K").page(atCursor: "/photos?page=2&per_page=30", as: PhotoList.self)
        #expect(try endpoint.url().absoluteString == "https://api.unsplash.com/photos?page=2&per_page=30")
    }

    @Test func aForeignLinkIsNeverMadeACursor() {
        #expect(throws: UnsplashError.self) {
            try api.cursor(for: URL(string: "https://evil.example.com/photos?page=2")!)
        }
        #expect(throws: UnsplashError.self) {
            try api.page(atCursor: "//evil.example.com/photos?page=2", as: PhotoList.self)
        }
        #expect(throws: UnsplashError.self) {
            try api.page(atCursor: "https://evil.example.com/photos?page=2", as: PhotoList.self)
        }
    }
}

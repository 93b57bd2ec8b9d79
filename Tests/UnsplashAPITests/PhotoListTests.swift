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

@Suite struct PhotoListTests {
    @Test func aRealPageDecodesWhole() throws {
        let list = try JSONDecoder().decode(PhotoList.self, from: Fixture.page1.data)
        #expect(list.photos.count == 10 && list.rejected.isEmpty)
        #expect(list.photos.map(\.id) == (try JSONDecoder().decode([Photo].self, from: Fixture.page1.data)).map(\.id))
    }

    @Test func anElementWithoutAnIdIsRejectedAndTheOthersDecode() throws {
        let all = try JSONDecoder().decode([Photo].self, from: Fixture.page1.data).map(\.id)
        let data = try realPage(spoiling: 3) { $0["id"] = nil }

        let list = try JSONDecoder().decode(PhotoList.self, from: data)

        #expect(list.photos.map(\.id) == all.enumerated().filter { $0.offset != 3 }.map(\.element))
        let rejected = try #require(list.rejected.first)
        #expect(list.rejected.count == 1 && rejected.index == 3)
        #expect(rejected.reason == "\"id\" is missing" && rejected.photoID == nil)
        // The element is kept whole: its other fields are all there.
        #expect(rejected.json["urls"]?["regular"]?.string?.hasPrefix("https://images.unsplash.com/") == true)
    }

    @Test func anEmptyIdAWrongTypeAndANonObjectAreRejectedWithTheirReasons() throws {
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

        let list = try JSONDecoder().decode(PhotoList.self, from: data)

        #expect(list.rejected.map(\.reason) == [
            "\"id\" is empty", "\"user.name\" is not String", "\"width\" is negative (-1)", "not a JSON object",
        ])
        #expect(list.rejected.map(\.index) == [0, 1, 2, 10])
        #expect(list.photos.count == 7)
    }

    @Test func aBodyThatIsNotAnArrayStillFails() {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(PhotoList.self, from: Data(#"{"errors":["x"]}"#.utf8)) }
    }
}

@Suite struct CursorTests {
    let api = UnsplashAPI(baseURL: URL(string: "http://127.0.0.1:8080")!, accessKey: "K")

    @Test func aNextLinkIsStoredAsPathAndQuery() throws {
        let cursor = try api.cursor(for: URL(string: "http://127.0.0.1:8080/photos?order_by=latest&page=2&per_page=30")!)
        #expect(cursor == "/photos?order_by=latest&page=2&per_page=30")
    }

    @Test func aCursorResolvesAgainstTheConfiguredBase() throws {
        let endpoint = try UnsplashAPI(accessKey: "K").photos(atCursor: "/photos?page=2&per_page=30")
        #expect(try endpoint.url().absoluteString == "https://api.unsplash.com/photos?page=2&per_page=30")
    }

    @Test func aForeignLinkIsNeverMadeACursor() {
        #expect(throws: UnsplashError.self) { try api.cursor(for: URL(string: "https://evil.example.com/photos?page=2")!) }
        #expect(throws: UnsplashError.self) { try api.photos(atCursor: "//evil.example.com/photos?page=2") }
        #expect(throws: UnsplashError.self) { try api.photos(atCursor: "https://evil.example.com/photos?page=2") }
    }
}

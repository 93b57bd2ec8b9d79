import Foundation
import NIOCore
import PhotoStore
import PhotoStoreSQLite
import TestSupport
import Testing
import UnsplashAPI

@testable import Gallery

/// ``MirroredPhoto/text(_:id:storedVariants:)`` replaces the download location in the stored
/// text; what it sends must be what decoding, changing and encoding the photo would send.
@Suite struct MirroredPhotoTests {
    static let mirror = MirroredPhoto(origin: "http://mirror.test:8080", imageURLs: .unsplash)

    /// Every photo of the real recordings, each as the exact text the API sent.
    static func recordedPhotos() throws -> [(id: String, json: Data)] {
        var texts: [Data] = []
        for fixture in [Fixture.photo, .photo2025, .photoRandom2023] { texts.append(try fixture.data) }
        for fixture in [Fixture.page1, .photosSponsored, .usersPhotos, .usersLikes, .collectionsPhotos, .topicsPhotos] {
            let body = try fixture.data
            texts += JSONSpans.arrayElements(of: body).map { body[$0] }
        }
        let search = try Fixture.searchPhotos.data
        let results = try #require(JSONSpans.member("results", of: search))
        texts += JSONSpans.arrayElements(of: search[results]).map { search[$0] }
        return try texts.map { text in (try #require(JSONValue.parse(text)?["id"]?.string), text) }
    }

    @Test func theSplicedTextIsThePhotoDecodedChangedAndEncoded() throws {
        let photos = try Self.recordedPhotos()
        #expect(photos.count > 50)
        for (id, json) in photos {
            let text = try #require(Self.mirror.text(json, id: id, storedVariants: []))
            let expected = try #require(Self.mirror.render(json, id: id, storedVariants: []))
            #expect(JSONValue.parse(text) == expected, "\(id)")
            let location = try #require(JSONValue.parse(text)?["links"]?["download_location"]?.string)
            #expect(location.hasPrefix("http://mirror.test:8080/unsplash/photos/\(id)/download?ixid="), "\(location)")
        }
    }

    @Test func everyByteButTheLinksIsTheRecordedText() throws {
        let (id, json) = try #require(try Self.recordedPhotos().first)
        let text = try #require(Self.mirror.text(json, id: id, storedVariants: []))

        // The photo's links are the recorded ones but the download location and `self`, each a
        // string where it was
        let (links, recordedLinks) = (
            try #require(JSONSpans.member("links", of: text)), try #require(JSONSpans.member("links", of: json))
        )
        var expected = String(decoding: json[recordedLinks], as: UTF8.self)
        for name in ["download_location", "self"] {
            let recorded = try #require(JSONValue.parse(json)?["links"]?[name]?.string)
            let served = try #require(JSONValue.parse(text)?["links"]?[name]?.string)
            expected = expected.replacingOccurrences(of: "\"\(recorded)\"", with: "\"\(served)\"")
        }
        #expect(String(decoding: text[links], as: UTF8.self) == expected)
        // AND every byte but the photo's links and its photographer's is the recorded text
        let (user, recordedUser) = (
            try #require(JSONSpans.member("user", of: text)), try #require(JSONSpans.member("user", of: json))
        )
        let (userLinks, recordedUserLinks) = (
            try #require(JSONSpans.member("links", of: text[user])),
            try #require(JSONSpans.member("links", of: json[recordedUser]))
        )
        // AND the photographer's links are the recorded text, members in their order, but each
        // API link on the mirror
        let username = try #require(JSONValue.parse(json)?["user"]?["username"]?.string)
        let recordedUserSelf = try #require(JSONValue.parse(json)?["user"]?["links"]?["self"]?.string)
        let expectedUserLinks = String(decoding: json[recordedUserLinks], as: UTF8.self).replacingOccurrences(
            of: "\"\(recordedUserSelf)", with: "\"http://mirror.test:8080/unsplash/users/\(username)")
        #expect(expectedUserLinks.components(separatedBy: "mirror.test").count - 1 == 6, "six API links")
        #expect(String(decoding: text[userLinks], as: UTF8.self) == expectedUserLinks)
        #expect(text[..<links.lowerBound] == json[..<recordedLinks.lowerBound])
        #expect(
            text[links.upperBound..<userLinks.lowerBound]
                == json[recordedLinks.upperBound..<recordedUserLinks.lowerBound])
        #expect(text[userLinks.upperBound...] == json[recordedUserLinks.upperBound...])
        #expect(
            JSONValue.parse(text)?["user"]?["links"]?["self"]?.string?.hasPrefix(
                "http://mirror.test:8080/unsplash/users/")
                == true)
    }

    @Test func aHostThatIsNotAURLStillMakesJSON() throws {
        let mirror = MirroredPhoto(origin: "http://evil\"host\\\u{1}", imageURLs: .unsplash)
        let json = Data(
            #"{"id":"abc","links":{"html":"h","download_location":"https:\/\/api.unsplash.com\/x?ixid=1"}}"#.utf8)

        let text = try #require(mirror.text(json, id: "abc", storedVariants: []))

        let location = try #require(JSONValue.parse(text)?["links"]?["download_location"]?.string)
        #expect(location == "http://evil\"host\\\u{1}/unsplash/photos/abc/download?ixid=1")
        #expect(JSONValue.parse(text)?["links"]?["html"]?.string == "h")
    }

    @Test func aPhotographersLinksAreMovedWhetherTheyAreEscapedOrNotAndWhateverTheHost() throws {
        let mirror = MirroredPhoto(origin: "http://evil\"host\\\u{1}", imageURLs: .unsplash)
        for links in [
            #"{"self":"https://api.unsplash.com/users/ann","html":"https://unsplash.com/@ann","photos":"https://api.unsplash.com/users/ann/photos","other":"https://api.unsplash.com/users/annie"}"#,
            #"{"self":"https:\/\/api.unsplash.com\/users\/ann","html":"https://unsplash.com/@ann","photos":"https:\/\/api.unsplash.com\/users\/ann\/photos","other":"https://api.unsplash.com/users/annie"}"#,
        ] {
            let json = Data(#"{"id":"abc","user":{"username":"ann","links":\#(links)},"links":{"html":"h"}}"#.utf8)

            let text = try #require(mirror.text(json, id: "abc", storedVariants: []))

            let served = try #require(JSONValue.parse(text)?["user"]?["links"])
            #expect(served["self"]?.string == "http://evil\"host\\\u{1}/unsplash/users/ann")
            #expect(served["photos"]?.string == "http://evil\"host\\\u{1}/unsplash/users/ann/photos")
            // Not under the user's own link: as it was. The photographer's page is Unsplash's.
            #expect(served["other"]?.string == "https://api.unsplash.com/users/annie")
            #expect(served["html"]?.string == "https://unsplash.com/@ann")
        }
    }

    @Test func aListsBufferGetsEachPhotosTextAfterWhatItHeldAndNothingForANonObject() throws {
        let photos = try Self.recordedPhotos()
        var body = ByteBuffer(string: "[")
        var expected = Data("[".utf8)
        for (id, json) in photos {
            #expect(Self.mirror.write(json, id: id, storedVariants: [], to: &body))
            expected += try #require(Self.mirror.text(json, id: id, storedVariants: []))
        }
        // A photo rendered whole (a variant on the mirror) goes in as its text too
        let (id, json) = photos[0]
        let local = MirroredPhoto(origin: "http://mirror.test:8080", imageURLs: .local)
        let stored = [
            StoredImage(variant: .small, contentType: "image/jpeg", byteCount: 3, sha256: "", fetchedAt: Date())
        ]
        #expect(local.write(json, id: id, storedVariants: stored, to: &body))
        expected += try #require(local.text(json, id: id, storedVariants: stored))

        let before = body.readableBytes
        #expect(!Self.mirror.write(Data("[1]".utf8), id: "abc", storedVariants: [], to: &body))
        #expect(body.readableBytes == before, "nothing written for a text that is no object")
        #expect(Data(body.readableBytesView) == expected)
    }

    @Test func aPhotoWithoutALocationGetsOneAndOneWithoutLinksStaysAsItIs() throws {
        let withoutLocation = Data(#"{"id":"abc","links":{"html":"h"}}"#.utf8)
        let added = try #require(Self.mirror.text(withoutLocation, id: "abc", storedVariants: []))
        #expect(
            JSONValue.parse(added)?["links"]?["download_location"]?.string
                == "http://mirror.test:8080/unsplash/photos/abc/download")

        let withoutLinks = Data(#" {"id":"abc","links":null}"#.utf8)
        #expect(Self.mirror.text(withoutLinks, id: "abc", storedVariants: []) == withoutLinks)
        #expect(Self.mirror.text(Data("[1]".utf8), id: "abc", storedVariants: []) == nil)
    }

    @Test func theQueryIsKeptWithWhatAQueryMayNotHoldPercentEncoded() {
        let query = { (url: String) in MirroredPhoto.query(of: url.utf8) }
        #expect(query("https://api.unsplash.com/photos/a/download?ixid=M3w%7C1") == "ixid=M3w%7C1")
        #expect(query("<API_URI>photos/a/download?ixid=1&x=a/b?c:d@e") == "ixid=1&x=a/b?c:d@e")
        #expect(query("https://h/x?a=b c\"<>{|}^`\\é") == "a=b%20c%22%3C%3E%7B%7C%7D%5E%60%5C%C3%A9")
        #expect(query("https://h/x?a=%zz%4&b=%4a") == "a=%25zz%254&b=%4a")
        #expect(query("https://h/x?a=1#fragment?b=2") == "a=1")
        #expect(query("https://h/x?") == "")
        #expect(query("https://h/x") == nil)
    }

    @Test func aLocationWithEscapesIsReadAsTheStringItSpells() {
        let literal = { (text: String) in MirroredPhoto.query(ofStringLiteral: Data(text.utf8)) }
        #expect(literal(#""https:\/\/api.unsplash.com\/x?ixid=1\u0026a=\/""#) == "ixid=1&a=/")
        #expect(literal(#""https://api.unsplash.com/x?ixid=1""#) == "ixid=1")
        #expect(literal("null") == nil)
        #expect(literal("12") == nil)
        #expect(literal(#""\""#) == nil)
    }
}

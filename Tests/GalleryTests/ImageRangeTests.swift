import Foundation
import Gallery
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

/// `/images/ID` and a `Range` header, as RFC 9110 §14 says: over real HTTP on loopback, on a
/// database in a temporary directory.
@Suite(.timeLimit(.minutes(5))) struct ImageRangeTests {
    static let bytes = noise(70_000)
    static let uri = "/images/a?variant=regular"

    /// Bytes that do not repeat, so that a byte sent from the wrong offset shows.
    static func noise(_ count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> Data {
        TestSupport.Sample.bytes(count: count, seed: seed)
    }

    /// A gallery serving ``bytes`` as photo `a`'s regular image; `body` gets a client and its ETag.
    static func serving(
        _ bytes: Data = Self.bytes, _ body: @escaping @Sendable (any TestClientProtocol, String) async throws -> Void
    ) async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit([Sample.photo("a", day: 1)])
        let etag = "\"\(try await fixture.storeImage("a", bytes: bytes))\""
        try await fixture.serve { client in try await body(client, etag) }
    }

    /// (Range, status, Content-Range, the offsets of the bytes sent)
    static let answers: [(String, HTTPResponse.Status, String?, Range<Int>)] = [
        ("bytes=100-199", .partialContent, "bytes 100-199/70000", 100..<200),
        ("bytes=0-0", .partialContent, "bytes 0-0/70000", 0..<1),
        ("bytes=69900-", .partialContent, "bytes 69900-69999/70000", 69_900..<70_000),
        ("bytes=-300", .partialContent, "bytes 69700-69999/70000", 69_700..<70_000),
        ("bytes=-100000", .partialContent, "bytes 0-69999/70000", 0..<70_000),
        ("bytes=69990-80000", .partialContent, "bytes 69990-69999/70000", 69_990..<70_000),
        ("bytes=69999-99999999999999999999", .partialContent, "bytes 69999-69999/70000", 69_999..<70_000),
        ("bytes=70000-", .rangeNotSatisfiable, "bytes */70000", 0..<0),
        ("bytes=70000-70010", .rangeNotSatisfiable, "bytes */70000", 0..<0),
        ("bytes=99999999999999999999-", .rangeNotSatisfiable, "bytes */70000", 0..<0),
        ("bytes=-0", .rangeNotSatisfiable, "bytes */70000", 0..<0),
        ("bytes=0-1,5-6", .ok, nil, 0..<70_000),
        ("items=0-5", .ok, nil, 0..<70_000),
        ("bytes=5-3", .ok, nil, 0..<70_000),
        ("bytes=", .ok, nil, 0..<70_000),
        ("bytes=-5-10", .ok, nil, 0..<70_000),
    ]

    @Test(arguments: answers)
    func aRangeGetsItsBytesAloneAndAnythingElseTheWholeImage(
        _ range: String, _ status: HTTPResponse.Status, _ contentRange: String?, _ sent: Range<Int>
    ) async throws {
        try await Self.serving { client, etag in
            // WHEN an image is asked for with a Range
            let response = try await client.execute(uri: Self.uri, method: .get, headers: [.range: range])
            // THEN the answer is 206 with those bytes, 416, or 200 with the whole image
            #expect(response.status == status)
            #expect(response.headers[.contentRange] == contentRange)
            #expect(response.headers[.contentLength] == String(sent.count))
            #expect(Data(buffer: response.body) == Self.bytes[sent])
            #expect(response.headers[.acceptRanges] == "bytes")
            if status != .rangeNotSatisfiable {
                #expect(response.headers[.eTag] == etag)
                #expect(response.headers[.contentType] == "image/jpeg")
                #expect(response.headers[.cacheControl] == "public, max-age=31536000, immutable")
            }
        }
    }

    @Test func anAnswerWithoutRangeSaysRangesAreAccepted() async throws {
        try await Self.serving { client, _ in
            for method in [HTTPRequest.Method.get, .head] {
                let response = try await client.execute(uri: Self.uri, method: method)
                #expect(response.status == .ok, "\(method)")
                #expect(response.headers[.acceptRanges] == "bytes", "\(method)")
                #expect(response.headers[.contentRange] == nil, "\(method)")
            }
        }
    }

    @Test func aRangeCrossingTheStoresReadsGetsExactlyItsBytes() async throws {
        // GIVEN an image over two of the 512 KiB chunks the gallery reads at a time
        let bytes = Self.noise(1_200_000, seed: 7)
        try await Self.serving(bytes) { client, _ in
            // WHEN a range starting inside the first and ending inside the third is asked for
            let response = try await client.execute(
                uri: Self.uri, method: .get, headers: [.range: "bytes=500000-1100000"])
            // THEN exactly those bytes come
            #expect(response.status == .partialContent)
            #expect(response.headers[.contentRange] == "bytes 500000-1100000/1200000")
            #expect(Data(buffer: response.body) == bytes[500_000...1_100_000])
        }
    }

    @Test func aRangeSentWholeLeavesItsConnectionForTheNextRequest() async throws {
        try await Self.serving { client, _ in
            // WHEN a range and then another request come on one connection, as a download
            // manager asks for one part after another
            let port = try #require(client.port)
            let (received, closed) = try await RawHTTPExchange.sendUnparsed(
                "GET \(Self.uri) HTTP/1.1\r\nHost: 127.0.0.1\r\nRange: bytes=100-199\r\n\r\n"
                    + "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                port: UInt16(port))
            // THEN the range comes whole, and the connection was kept for the second answer: a
            // range is no image that changed under its stream, which would close it
            #expect(closed)
            let head = try #require(received.firstRange(of: Data("\r\n\r\n".utf8)), "no head")
            #expect(String(decoding: received[..<head.lowerBound], as: UTF8.self).hasPrefix("HTTP/1.1 206 "))
            let rest = received[head.upperBound...]
            #expect(rest.prefix(100) == Self.bytes[100..<200])
            let next = String(decoding: rest.dropFirst(100), as: UTF8.self)
            #expect(next.hasPrefix("HTTP/1.1 200 ") && next.hasSuffix("\r\n\r\nok\n"), "\(next)")
        }
    }

    /// (If-Range, whether the range is honoured)
    static let validators: [(String, Bool)] = [
        ("ETAG", true), ("W/ETAG", false), ("\"0000\"", false), ("Tue, 15 Nov 1994 08:12:31 GMT", false),
        ("*", false), ("", false),
    ]

    @Test(arguments: validators)
    func ifRangeHonoursTheRangeOnlyForTheImagesStrongETag(_ validator: String, _ honoured: Bool) async throws {
        try await Self.serving { client, etag in
            // WHEN a range is asked for, if the image is still the one with a validator
            let ifRange = validator.replacingOccurrences(of: "ETAG", with: etag)
            let response = try await client.execute(
                uri: Self.uri, method: .get, headers: [.range: "bytes=10-19", .ifRange: ifRange])
            // THEN the range comes when the validator is the ETag, else the whole image
            #expect(response.status == (honoured ? .partialContent : .ok))
            #expect(Data(buffer: response.body) == (honoured ? Self.bytes[10..<20] : Self.bytes))
            #expect(response.headers[.contentRange] == (honoured ? "bytes 10-19/70000" : nil))
        }
    }

    @Test func ifNoneMatchIsAnsweredBeforeRange() async throws {
        try await Self.serving { client, etag in
            // WHEN a client that has the image asks for a range of it, satisfiable or not
            for range in ["bytes=0-9", "bytes=70000-"] {
                let response = try await client.execute(
                    uri: Self.uri, method: .get, headers: [.range: range, .ifNoneMatch: etag, .ifRange: etag])
                // THEN it is told it has it
                #expect(response.status == .notModified, "\(range)")
                #expect(response.body.readableBytes == 0)
                #expect(response.headers[.contentRange] == nil)
            }
        }
    }

    @Test func headIgnoresRangeAsOnlyGETHasRanges() async throws {
        try await Self.serving { client, etag in
            // WHEN HEAD comes with a range, satisfiable or not
            for range in ["bytes=0-9", "bytes=70000-"] {
                let response = try await client.execute(uri: Self.uri, method: .head, headers: [.range: range])
                // THEN it has the whole image's headers (RFC 9110 §14.2), and no body
                #expect(response.status == .ok, "\(range)")
                #expect(response.headers[.contentLength] == "70000")
                #expect(response.headers[.contentRange] == nil)
                #expect(response.headers[.acceptRanges] == "bytes")
                #expect(response.headers[.eTag] == etag)
                #expect(response.body.readableBytes == 0)
            }
        }
    }

    /// (Range, status, Content-Range) of an empty image. RFC 9110 §14.1.2: only a suffix is
    /// satisfiable, and a 206 cannot say an empty part, so it is the whole (empty) image.
    static let emptyAnswers: [(String, HTTPResponse.Status, String?)] = [
        ("bytes=0-", .rangeNotSatisfiable, "bytes */0"), ("bytes=0-0", .rangeNotSatisfiable, "bytes */0"),
        ("bytes=-0", .rangeNotSatisfiable, "bytes */0"), ("bytes=-5", .ok, nil),
    ]

    @Test(arguments: emptyAnswers)
    func anEmptyImageHasNoBytesToRange(_ range: String, _ status: HTTPResponse.Status, _ contentRange: String?)
        async throws
    {
        try await Self.serving(Data()) { client, _ in
            let response = try await client.execute(uri: Self.uri, method: .get, headers: [.range: range])
            #expect(response.status == status)
            #expect(response.headers[.contentRange] == contentRange)
            #expect(response.headers[.contentLength] == "0")
            #expect(response.body.readableBytes == 0)
        }
    }
}

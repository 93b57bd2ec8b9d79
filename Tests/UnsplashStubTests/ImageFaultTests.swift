import Foundation
import TestSupport
import Testing
import UnsplashStub

/// Image bodies that are cut short or longer than they should be, seen byte for byte through a
/// raw socket: URLSession would turn most of them into an error and hide what was sent.
@Suite(.timeLimit(.minutes(5))) struct ImageFaultTests {
    @Test func aTruncatedImageDeclaresItsFullLengthSendsHalfThenCloses() async throws {
        try await withStub(photoCount: 1) { stub, _ in
            // GIVEN
            let id = try #require(await stub.photoIDs().first)
            let whole = stub.imageBytes(photoID: id, variant: ImageVariant.regular)
            await stub.truncateImage(photoID: id)
            let url = URL(string: "\(await stub.baseURL.absoluteString)/images/\(id)?w=1080")!

            // WHEN
            let cut = try await RawHTTPExchange.get(url)
            let next = try await RawHTTPExchange.get(url)

            // THEN the connection ended after half the declared bytes
            #expect(cut.statusCode == 200)
            #expect(cut.header("Content-Length") == String(whole.count))
            #expect(Fingerprint(cut.body) == Fingerprint(whole.prefix(whole.count / 2)))
            #expect(Fingerprint(next.body) == Fingerprint(whole))
        }
    }

    @Test func trailingBytesFollowACorrectImageAndItsTrueLength() async throws {
        try await withStub(photoCount: 1) { stub, _ in
            let id = try #require(await stub.photoIDs().first)
            let whole = stub.imageBytes(photoID: id, variant: ImageVariant.regular)
            await stub.oversizeImage(photoID: id, .trailingBytes(1_000))
            let url = URL(string: "\(await stub.baseURL.absoluteString)/images/\(id)?w=1080")!

            let long = try await RawHTTPExchange.get(url)
            let next = try await RawHTTPExchange.get(url)

            #expect(long.header("Content-Length") == String(whole.count))
            #expect(long.body.count == whole.count + 1_000)
            #expect(Fingerprint(long.body.prefix(whole.count)) == Fingerprint(whole))
            #expect(Fingerprint(next.body) == Fingerprint(whole), "only the next request is oversized")
        }
    }

    @Test func anUnderstatedLengthDeclaresLessThanTheWholeImageItSends() async throws {
        try await withStub(photoCount: 1) { stub, _ in
            let id = try #require(await stub.photoIDs().first)
            let whole = stub.imageBytes(photoID: id, variant: ImageVariant.regular)
            await stub.oversizeImage(photoID: id, .understatedLength(100))

            let answer = try await RawHTTPExchange.get(
                URL(string: "\(await stub.baseURL.absoluteString)/images/\(id)?w=1080")!)

            #expect(answer.header("Content-Length") == "100")
            #expect(Fingerprint(answer.body) == Fingerprint(whole))
        }
    }

    @Test(arguments: [true, false])
    func anEnlargedImageIsAsLargeAsAskedWithOrWithoutALength(declared: Bool) async throws {
        try await withStub(photoCount: 1, imageSize: 1_000) { stub, _ in
            let id = try #require(await stub.photoIDs().first)
            let whole = stub.imageBytes(photoID: id, variant: ImageVariant.regular)
            let size = 3 * 1024 * 1024 + 7
            await stub.oversizeImage(photoID: id, .enlarged(toBytes: size, declared: declared))

            let answer = try await RawHTTPExchange.get(
                URL(string: "\(await stub.baseURL.absoluteString)/images/\(id)?w=1080")!)

            #expect(answer.statusCode == 200)
            #expect(answer.body.count == size)
            #expect(Fingerprint(answer.body.prefix(whole.count)) == Fingerprint(whole), "it starts as the real image")
            if declared {
                #expect(answer.header("Content-Length") == String(size))
            } else {
                #expect(answer.header("Content-Length") == nil)
                #expect(answer.header("Transfer-Encoding") == "chunked")
            }
        }
    }
}

/// A body's size and SHA-256: compared instead of the bytes, because a failed comparison of
/// large `Data` makes the test library compute a diff that takes minutes.
struct Fingerprint: Equatable, CustomStringConvertible {
    let count: Int
    let sha256: String

    init(_ data: Data) {
        count = data.count
        sha256 = UnsplashStubTests.sha256(data)
    }

    var description: String { "\(count) bytes, SHA-256 \(sha256.prefix(12))…" }
}

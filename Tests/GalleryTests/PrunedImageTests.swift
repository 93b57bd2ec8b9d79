import Crypto
import Foundation
import Gallery
import Hummingbird
import HummingbirdTesting
import PhotoStore
import PhotoStoreSQLite
import Testing

@Suite(.timeLimit(.minutes(5))) struct PrunedImageTests {
    @Test func aPrunedImageShowsTheColourAndLinksToUnsplash() async throws {
        // GIVEN two photos whose images were stored, the older one pruned to stay within a budget
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit([
            Sample.photo("old", day: 1, color: "#445566", json: #", "blur_hash": "LEHV6nWB2yk8pyo0adR*.7kCMdnj""#),
            Sample.photo("new", day: 2),
        ])
        try await fixture.storeImage("old", bytes: Sample.bytes(1_000))
        let bytes = Sample.bytes(1_000, seed: 2)
        let batch = try await fixture.writer.archive.storeImages(
            [
                ImageToStore(
                    photoID: "new", variant: .regular, contentType: "image/jpeg", bytes: .data(bytes),
                    sha256: SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined(),
                    fetchedAt: Date(timeIntervalSince1970: 1_700_000_200))
            ],
            failures: [], storageLimit: 1_500)
        #expect(batch.pruned.map(\.photoID) == ["old"])

        try await fixture.serve { client in
            // WHEN its page is asked for
            let page = try await client.execute(uri: "/photos/old", method: .get).text
            // THEN the frame has the photo's colour, says the image was pruned and links to Unsplash
            #expect(page.contains("background-color: #445566"))
            #expect(page.contains("This image was pruned"), "\(page)")
            #expect(page.contains("id=\"pruned-unsplash\" href=\"https://unsplash.com/photos/old?"))
            #expect(!page.contains("No image of this photo is stored yet"))
            // AND shows the shape of the photo from its blur_hash, 32 by 24 like the photo's 4:3
            let blur = try #require(page.firstRange(of: #"<img id="blur" src="data:image/bmp;base64,"#))
            let encoded = page[blur.upperBound...].prefix { $0 != "\"" }
            let bitmap = try #require(Data(base64Encoded: String(encoded)))
            #expect(bitmap.prefix(2) == Data("BM".utf8) && bitmap.count == 54 + 32 * 3 * 24)
            // AND its image is gone, while the other one's page shows its image
            #expect(try await client.execute(uri: "/images/old", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/photos/new", method: .get).text.contains("<img id=\"photo\""))
        }
    }
}

import Foundation
import Testing

@testable import PhotoSync

@Suite struct ImageFormatTests {
    static let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 7, count: 100) + [0xFF, 0xD9])

    static func format(_ result: Result<ImageFormat, ImageFormat.Mismatch>) -> ImageFormat? {
        try? result.get()
    }

    func identify(_ body: Data, _ contentType: String? = "image/jpeg") -> Result<ImageFormat, ImageFormat.Mismatch> {
        ImageFormat.identify(
            contentType: contentType, prefix: body.prefix(32), suffix: body.suffix(32), byteCount: Int64(body.count))
    }

    @Test func aWholeImageOfTheDeclaredFormatIsAccepted() {
        #expect(Self.format(identify(Self.jpeg)) == .jpeg)
        #expect(Self.format(identify(Self.jpeg, nil)) == .jpeg, "the bytes alone decide without a Content-Type")
    }

    @Test func anHTMLPageOrAMislabelledImageIsRefused() {
        #expect(Self.format(identify(Data("<html>oops</html>".utf8), "text/html")) == nil)
        #expect(Self.format(identify(Self.jpeg, "image/png")) == nil)
    }

    @Test func anImageCutShortIsRefusedThoughItBeginsRight() {
        // What a server that understates its Content-Length hands over: the first bytes only.
        let cut = Self.jpeg.prefix(60)
        guard case .failure(let mismatch) = identify(Data(cut)) else {
            Issue.record("a cut JPEG was accepted")
            return
        }
        #expect(mismatch.description.contains("cut short"))
    }

    @Test func eachFormatsEndIsChecked() {
        let png = Data(
            [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 1, count: 40)
                + [0, 0, 0, 0] + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82])
        #expect(Self.format(identify(png, "image/png")) == .png)
        #expect(Self.format(identify(png.dropLast(12), "image/png")) == nil)
        var webp = Data("RIFF".utf8) + Data([0, 0, 0, 0]) + Data("WEBPVP8 ".utf8) + Data(repeating: 2, count: 20)
        let size = UInt32(webp.count - 8)
        webp.replaceSubrange(4..<8, with: withUnsafeBytes(of: size.littleEndian) { Data($0) })
        #expect(Self.format(identify(webp, "image/webp")) == .webp)
        #expect(Self.format(identify(webp.dropLast(3), "image/webp")) == nil)
        let gif = Data("GIF89a".utf8) + Data(repeating: 3, count: 20) + Data([0x3B])
        #expect(Self.format(identify(gif, "image/gif")) == .gif)
        #expect(Self.format(identify(gif.dropLast(), "image/gif")) == nil)
    }
}

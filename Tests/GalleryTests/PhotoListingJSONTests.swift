import Foundation
import Testing

@testable import Gallery

@Suite("The listed photo's JSON, written without JSONEncoder")
struct PhotoListingJSONTests {
    /// Every ASCII character, a few beyond, and the characters an encoder might escape.
    static let awkward: String = {
        var text = ""
        for scalar in 0..<0x80 { text.unicodeScalars.append(Unicode.Scalar(UInt8(scalar))) }
        return text + "/\u{7F}\u{80}\u{2028}\u{2029}é😀\u{FEFF}\\\"end"
    }()

    static let objects: [PhotoListingJSON.Object] = [
        PhotoListingJSON.Object(
            id: "a-_1", createdAt: "2026-11-27T10:00:00Z", width: 6000, height: 4000, color: "#0c2626",
            likes: Int.max, description: awkward, altDescription: "a \"quoted\" line\nand another",
            user: .init(username: "user/name", name: "Zoë \\ Ünal"), sources: ["feed", "collection:1", awkward],
            image: .init(variant: "regular", contentType: "image/jpeg", bytes: Int64.max, sha256: "ab")),
        PhotoListingJSON.Object(
            id: "b", createdAt: nil, width: nil, height: nil, color: nil, likes: Int.min, description: nil,
            altDescription: nil, user: .init(username: nil, name: nil), sources: [], image: nil),
    ]

    @Test("byte for byte what JSONEncoder writes with sorted keys and slashes unescaped")
    func theSameBytesAsJSONEncoder() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(PhotoListingJSON.encode(Self.objects) == (try encoder.encode(Self.objects)))
        #expect(PhotoListingJSON.encode([]) == (try encoder.encode([PhotoListingJSON.Object]())))
        let decoded = try JSONDecoder().decode(
            [PhotoListingJSON.Object].self, from: PhotoListingJSON.encode(Self.objects))
        #expect(decoded == Self.objects, "and it reads back as the same objects")
    }
}

import Foundation
import PhotoStore
import PhotoStoreSQLite
import Testing

@testable import PhotosyncCLI

@Suite struct ListingFormatTests {
    static let photo = PhotoSummary(
        id: "-R6xwObznIX", createdAt: Date(timeIntervalSince1970: 1_704_067_200), width: 4000, height: 3000,
        color: "#0c2626", likes: 7, description: "a \u{1B}[31mred\u{1B}[0m, \"quoted\"\nsunset", altDescription: nil,
        userUsername: "ann", userName: "Ann", image: nil, sources: ["feed", "user:ann"])

    @Test func textFromTheAPICannotSendEscapeSequencesToATerminal() {
        let table = ListFormat.table([Self.photo], width: 200).joined(separator: "\n")
        #expect(!table.contains("\u{1B}"))
        #expect(
            !table.dropFirst(table.firstIndex(of: "\n").map { table.distance(from: table.startIndex, to: $0) + 1 } ?? 0)
                .contains("\n"))
    }

    @Test func csvQuotesCommasQuotesAndLineBreaks() {
        let line = ListFormat.csvLine(Self.photo)
        #expect(line.contains("\"a \u{1B}[31mred\u{1B}[0m, \"\"quoted\"\"\nsunset\""))
        #expect(line.hasPrefix("-R6xwObznIX,2024-01-01T00:00:00Z,4000,3000,#0c2626,7,"))
    }

    @Test func csvQuotesACommaOrAQuoteThatACombiningMarkFollows() {
        // One `Character` each, not "," or "\"": a reader of code points splits or ends a field there.
        let (comma, quote) = (",\u{301}", "x\"\u{301}y")
        #expect(ListFormat.csvField(comma).unicodeScalars.elementsEqual("\",\u{301}\"".unicodeScalars))
        #expect(ListFormat.csvField(quote).unicodeScalars.elementsEqual("\"x\"\"\u{301}y\"".unicodeScalars))
    }

    @Test func jsonLinesAreOneLineWithNullForWhatIsMissing() throws {
        let line = ListFormat.jsonLine(Self.photo)
        #expect(!line.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["image"] is NSNull && object["alt_description"] is NSNull)
        #expect(object["sources"] as? [String] == ["feed", "user:ann"])
    }
}

@Suite struct ExportNamingTests {
    @Test func onlyUnsplashIdsNameFilesAndNeverAPathOutsideTheDirectory() {
        #expect(PhotoExporter.fileName(id: "-R6xwObznIX", contentType: "image/jpeg") == "-R6xwObznIX.jpg")
        #expect(PhotoExporter.fileName(id: "abc_1", contentType: "image/webp; q=1") == "abc_1.webp")
        for id in ["../../etc/passwd", "a/b", "..", "", "a b", "\u{0}x", "ümlaut", "-"] {
            #expect(PhotoExporter.fileName(id: id, contentType: "image/jpeg") == nil, "\(id)")
        }
    }
}

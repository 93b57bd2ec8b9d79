import Foundation
import PhotoStore
import PhotoStoreSQLite
import Testing

@testable import PhotosyncCLI

/// `photosync query`'s text: the attribution link, descriptions over several lines, and an
/// Unsplash+ photo's image.
@Suite struct QueryTextTests {
    static func photo(description: String?, isPlus: Bool = false) -> StoredPhoto {
        let json = #"{"id":"-R6xwObznIX","links":{"html":"http://staging.unsplash.com/photos/-R6xwObznIX"}}"#
        var photo = StoredPhoto(
            id: "-R6xwObznIX", sequence: 1, createdAt: nil, updatedAt: nil, width: 4000, height: 3000,
            color: "#0c2626", blurHash: nil, description: description, altDescription: "alt\ntext",
            userUsername: "ann", userName: "Ann", likes: 7, isSponsored: false, downloadLocation: nil,
            downloadTrackedAt: nil, json: Data(json.utf8), firstSeenAt: Date(), lastSeenAt: Date(), image: nil)
        photo.isPlus = isPlus
        return photo
    }

    @Test func thePageIsTheAttributionLinkExportUsesNotTheStoredOne() {
        let text = QueryCommand.text(Self.photo(description: nil))

        #expect(
            text.contains(
                "  page        https://unsplash.com/photos/-R6xwObznIX?utm_source=photosync&utm_medium=referral\n"))
        #expect(!text.contains("staging"))
    }

    @Test func aDescriptionOverSeveralLinesKeepsItsLinesUnderOneAnotherWithoutControlCharacters() {
        let text = QueryCommand.text(Self.photo(description: "First line,\u{1B}[31m red\r\n\n  second\tline  \n"))

        #expect(text.contains("  description First line, [31m red\n              second line\n"), "\(text)")
        #expect(!text.contains("\u{1B}") && !text.contains("\r") && !text.contains("\t"))
        #expect(text.hasPrefix("-R6xwObznIX  alt text\n"), "the alt description is one line")
    }

    @Test func listPutsTheSameDescriptionOnOneLineWithOneSpaceBetweenItsLines() {
        #expect(
            DisplayText.oneLine("First line,\u{1B}[31m red\r\n\n  second\tline  \n")
                == "First line, [31m red second line")
        #expect(DisplayText.oneLine("") == "")
    }

    @Test func anUnsplashPlusPhotoSaysItsImageIsNotDownloadedNotThatItIsNotStoredYet() {
        let plus = QueryCommand.text(Self.photo(description: nil, isPlus: true))
        #expect(plus.contains("  image       not downloaded: an Unsplash+ photo, whose image needs a paid licence"))
        #expect(!plus.contains("not stored yet"))
        #expect(QueryCommand.text(Self.photo(description: nil)).contains("  image       not stored yet"))
    }

    @Test func outputOfAnUnsplashPlusPhotoExits1SayingItsImageIsNotDownloaded() async throws {
        let directory = TemporaryDirectory()
        let store = try PhotoStore(path: directory.path + "/photosync.sqlite")

        let plus = try await QueryCommand.noStoredImage(Self.photo(description: nil, isPlus: true), store: store)
        let free = try await QueryCommand.noStoredImage(Self.photo(description: nil), store: store)

        #expect(plus.code == .notFound)
        #expect(
            plus.message
                == "photo -R6xwObznIX is an Unsplash+ photo: its image needs a paid licence and is not downloaded")
        #expect(free.message == "photo -R6xwObznIX has no stored image yet")
    }
}

import Foundation
import PhotoStore
@testable import PhotosyncCLI
import Testing

@Suite struct StatusOutputTests {
    let since = Date(timeIntervalSince1970: 1_750_000_000)

    var stalled: StoreStatistics {
        var stats = StoreStatistics(
            photos: 30, imagesStored: 30, imagesPending: 0, imagesFailed: 0, bytesStored: 1000,
            backfillNext: URL(string: "/photos?page=2&per_page=30"), backfillComplete: false, lastPageAt: since)
        stats.rejectedPhotos = 2
        stats.backfillStall = BackfillStall(reason: "the page is empty but links a next page", since: since)
        return stats
    }

    @Test func textSaysTheBackfillIsStalledAndCountsRejectedPhotos() {
        let rejected = [RejectedPhoto(photoID: nil, json: Data("{}".utf8), reason: "\"id\" is missing")]

        let text = StatusCommand.text(stalled, failures: [], rejected: rejected)

        #expect(text.contains("photos rejected 2\n"))
        #expect(text.contains(
            "backfill        in progress, next /photos?page=2&per_page=30; stalled since 2025-06-15T15:06:40Z, retrying: the page is empty but links a next page"))
        #expect(text.contains("  rejected (no id): \"id\" is missing"))
    }

    @Test func jsonCarriesTheSameFacts() throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(StatusCommand.json(stalled).utf8)) as? [String: Any])

        #expect(object["photos_rejected"] as? Int == 2)
        #expect(object["backfill_cursor"] as? String == "/photos?page=2&per_page=30")
        let stall = try #require(object["backfill_stalled"] as? [String: Any])
        #expect(stall["reason"] as? String == "the page is empty but links a next page")
        #expect(stall["since"] as? String == "2025-06-15T15:06:40Z")
    }
}

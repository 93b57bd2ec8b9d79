import Testing
import UnsplashStub

/// What a kill must never undo, noted after each kill of a test that kills `run` again and
/// again: the images stored, with how often the stub had served each, and the downloads whose
/// tracking was recorded, with how often the stub had been asked to track each. Whatever later
/// runs do, none of these is fetched or tracked again.
struct WhatAKillKeeps {
    private var fetchesOfStored: [String: Int] = [:]
    private var trackingsRecorded: [String: Int] = [:]

    /// Notes the photos whose image is `stored` and whose tracking is `tracked` now, each the first
    /// time it is seen.
    mutating func note(stored: [String], tracked: [String], stub: UnsplashStub) async {
        for id in stored where fetchesOfStored[id] == nil {
            fetchesOfStored[id] = await stub.imageRequestCount(photoID: id)
        }
        for id in tracked where trackingsRecorded[id] == nil {
            trackingsRecorded[id] = await stub.downloadTrackingRequestCount(photoID: id)
        }
    }

    /// Expects that no image noted was fetched again, and no tracking noted sent again.
    func expectNothingRepeated(_ stub: UnsplashStub) async {
        for (id, fetches) in fetchesOfStored {
            #expect(await stub.imageRequestCount(photoID: id) == fetches, "\(id) was stored, then fetched again")
        }
        for (id, trackings) in trackingsRecorded {
            #expect(
                await stub.downloadTrackingRequestCount(photoID: id) == trackings,
                "\(id)'s tracking was recorded, then sent again")
        }
    }
}

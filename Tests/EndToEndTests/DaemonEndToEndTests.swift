import Foundation
import PhotoStore
import PhotoStoreSQLite
import TestSupport
import Testing
import UnsplashStub

/// The daemon as systemd runs it: `Type=notify`, stopped with SIGTERM.
extension EndToEnd {
    @Suite(.serialized, .timeLimit(.minutes(5))) struct DaemonEndToEndTests {
        @Test(arguments: StoreKind.allCases) func notifiesReadyAndStopsCleanlyOnSIGTERM(_ store: StoreKind)
            async throws
        {
            // GIVEN a daemon busy with a feed whose images come slowly, and a notification socket
            let world = try await PhotosyncEndToEndTests.World.start(photos: 150, store: StoreSetup(store))
            try await withTeardown(await world.stop()) {
                await world.stub.delayImages(by: .milliseconds(20))
                let socket = try NotifySocket()
                defer { socket.close() }
                let daemon = try await world.daemon(["--poll-interval", "10"], notifying: socket)

                // WHEN it says it is ready, and has made progress
                #expect(await socket.awaitMessage { $0 == "READY=1" } != nil)
                #expect(await socket.awaitMessage { $0.hasPrefix("STATUS=") && $0.contains("images") } != nil)
                let sawPage = await daemon.awaitPages(1)
                #expect(sawPage)
                // AND is sent SIGTERM
                let stopAsked = ContinuousClock.now
                daemon.signal(SIGTERM)

                // THEN it says it is stopping, exits 0 within seconds, and leaves a consistent database
                let result = await daemon.result()
                #expect(result.status == 0, "\(result.stderr)")
                #expect(stopAsked.duration(to: .now) < .seconds(5))
                #expect(socket.received.contains("STOPPING=1"))

                let store = try await world.store()
                let stats = try await store.catalog.statistics()
                #expect(stats.photos > 0)
                #expect(stats.imagesStored + stats.imagesPending + stats.imagesFailed == stats.photos)
                for id in try await store.catalog.photoIDs(withStoredImage: true) {
                    #expect(
                        try await store.catalog.photo(id: id)?.image?.sha256
                            == world.stub.expectedSHA256(photoID: id, variant: "regular"))
                }
                #expect(!result.stderr.contains(PhotosyncEndToEndTests.key))
                // AND the next run starts at once: the lock, or the lease, went with the daemon
                let next = try await world.sync(["--max-pages", "1"])
                #expect(next.status == 0 || next.status == 75, "\(next.stderr)")
            }
        }
    }
}

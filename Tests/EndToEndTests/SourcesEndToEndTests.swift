import Foundation
import PhotoStore
import PhotoStoreSQLite
import TestSupport
import Testing
import UnsplashStub

/// `photosync run` over several sources at once, against the stub's world, where the sources
/// overlap: the feed, a photographer, their likes, a collection, a topic and a search.
extension EndToEnd {
    @Suite(.serialized, .timeLimit(.minutes(5))) struct SourcesEndToEndTests {
        typealias World = PhotosyncEndToEndTests.World

        static func sources(_ world: World) async -> [String] {
            let user = world.stub.usernames[0]
            return ["feed", "user:\(user)", "likes:\(user)", "collection:3773378", "topic:wallpapers", "search:lake"]
        }

        static func arguments(_ sources: [String]) -> [String] {
            sources.flatMap { ["--source", $0] }
        }

        /// What `status --json` says of each source.
        static func statusSources(_ world: World) async throws -> [String: [String: Any]] {
            let status = try await PhotosyncProcess.run([
                "status", "--json", "--database", world.database, "--config", world.config,
            ])
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])
            let sources = try #require(object["sources"] as? [[String: Any]])
            return Dictionary(uniqueKeysWithValues: sources.map { ($0["source"] as? String ?? "", $0) })
        }

        @Test(arguments: StoreKind.allCases) func everySourceIsStoredOnceWithEachImageOnceAndTrackedOnce(
            _ store: StoreKind
        ) async throws {
            let world = try await World.start(photos: 150, store: StoreSetup(store))
            try await withTeardown(await world.stop()) {
                let sources = await Self.sources(world)

                let result = try await world.sync(Self.arguments(sources))

                #expect(result.status == 0, "\(result.stderr)")
                var expected: [String: [String]] = [:]
                for source in sources {
                    let ids = try #require(await world.stub.photoIDs(ofSource: source), "\(source)")
                    expected[source] = ids
                    #expect(expected[source]?.isEmpty == false, "\(source) lists nothing in the stub's world")
                }
                let all = Set(expected.values.joined())
                let premium = Set(await world.stub.premiumPhotoIDs())
                #expect(!all.isDisjoint(with: premium), "the sources should hold Unsplash+ photos")
                let store = try await world.store()
                let stats = try await store.catalog.statistics()
                // Each photo once, whichever sources list it.
                #expect(stats.photos == Int64(all.count))
                #expect(
                    stats.imagesStored == Int64(all.subtracting(premium).count) && stats.imagesFailed == 0
                        && stats.imagesPending == 0)
                #expect(stats.plusPhotos == Int64(all.intersection(premium).count))
                for id in all {
                    if premium.contains(id) {
                        #expect(try await store.catalog.photo(id: id)?.image == nil)
                        #expect(await world.stub.imageRequestCount(photoID: id) == 0)
                        #expect(
                            await world.stub.downloadTrackingCount(photoID: id) == 0, "an Unsplash+ photo was tracked")
                    } else {
                        let image = try #require(
                            try await store.catalog.photo(id: id)?.image, "photo \(id) has no image")
                        #expect(image.sha256 == world.stub.expectedSHA256(photoID: id, variant: "regular"))
                        #expect(
                            await world.stub.imageRequestCount(photoID: id) == 1, "\(id) was fetched more than once")
                        #expect(
                            await world.stub.downloadTrackingCount(photoID: id) == 1,
                            "\(id) was not tracked exactly once")
                    }
                }
                // status --json counts each source's photos as the stub holds them.
                let status = try await Self.statusSources(world)
                for source in sources {
                    #expect(status[source]?["photos"] as? Int == expected[source]?.count, "\(source)")
                    #expect(status[source]?["backfill_complete"] as? Bool == true, "\(source)")
                    #expect(status[source]?["active"] as? Bool == true, "\(source)")
                }
                // list --source shows a source's photos, with every source that listed each.
                let user = sources[1]
                let listed = try await PhotosyncProcess.run([
                    "list", "--ids", "--source", user, "--database", world.database, "--config", world.config,
                ])
                #expect(Set(listed.stdout.split(separator: "\n").map(String.init)) == Set(expected[user] ?? []))
            }
        }

        @Test(arguments: StoreKind.allCases) func aSecondRunOnlyChecksTheHeadOfEachSource(_ store: StoreKind)
            async throws
        {
            let world = try await World.start(photos: 90, store: StoreSetup(store))
            try await withTeardown(await world.stop()) {
                let sources = await Self.sources(world)
                #expect(try await world.sync(Self.arguments(sources)).status == 0)
                await world.stub.resetRequestLog()

                let again = try await world.sync(Self.arguments(sources))

                #expect(again.status == 0, "\(again.stderr)")
                let pages = await world.stub.requests().filter {
                    !$0.path.hasPrefix("/images") && !$0.path.hasSuffix("/download")
                }
                #expect(pages.count == sources.count, "\(pages.map(\.path))")
                #expect(pages.allSatisfy { $0.queryValue("page") == "1" })
            }
        }

        @Test(arguments: StoreKind.allCases) func aKilledMultiSourceSyncResumesEachSourceWhereItStopped(
            _ store: StoreKind
        ) async throws {
            let world = try await World.start(photos: 240, store: StoreSetup(store))
            try await withTeardown(await world.stop()) {
                let sources = await Self.sources(world)
                await world.stub.delayImages(by: .milliseconds(5))

                // GIVEN a sync of every source killed with SIGKILL after a few pages
                let first = try PhotosyncProcess(
                    await world.runArguments(Self.arguments(sources) + ["--per-page", "10", "--concurrency", "2"]),
                    environment: ["UNSPLASH_ACCESS_KEY": PhotosyncEndToEndTests.key])
                #expect(await first.awaitPages(8))
                first.signal(SIGKILL)
                #expect(await first.result().status != 0)

                // (what each source had committed when it was killed: its pages before the cursor)
                let store = try await world.store()
                var committedPages: [String: Int] = [:]
                for source in sources {
                    let state = try await store.ledger.syncState(source: PhotoSource(parsing: source))
                    let ids = try #require(await world.stub.photoIDs(ofSource: source))
                    if state.backfillComplete {
                        committedPages[source] = (ids.count + 9) / 10
                    } else {
                        let page = state.backfillNext.flatMap {
                            URLComponents(url: $0, resolvingAgainstBaseURL: false)
                        }?
                        .queryItems?.first { $0.name == "page" }?.value.flatMap { Int($0) }
                        committedPages[source] = (page ?? 1) - 1
                    }
                }
                #expect(committedPages.values.reduce(0, +) > 0, "the kill came before any page was stored")
                await world.stub.resetRequestLog()

                // WHEN it is restarted
                await world.stub.delayImages(by: nil)
                let second = try await world.sync(Self.arguments(sources) + ["--per-page", "10"])

                // THEN every source is complete, having fetched only the pages it had not stored (the
                // one in flight at the kill among them) and its head once
                #expect(second.status == 0, "\(second.stderr)")
                let status = try await Self.statusSources(world)
                let requests = await world.stub.requests()
                for source in sources {
                    let ids = try #require(await world.stub.photoIDs(ofSource: source))
                    #expect(status[source]?["photos"] as? Int == ids.count, "\(source)")
                    #expect(status[source]?["backfill_complete"] as? Bool == true, "\(source)")
                    let pages = (ids.count + 9) / 10
                    let fetched = requests.filter { $0.path == Self.path(of: source) }.count
                    let left = pages - (committedPages[source] ?? 0)
                    #expect(
                        fetched <= left + 1,
                        "\(source): \(fetched) requests after the restart, for \(left) pages not stored")
                }
                let stats = try await world.store().catalog.statistics()
                #expect(stats.imagesPending == 0 && stats.imagesFailed == 0)
            }
        }

        @Test func aSourceNoLongerConfiguredStaysInactiveAndResumesWhenAddedBack() async throws {
            let world = try await World.start(photos: 60)
            try await withTeardown(await world.stop()) {
                #expect(try await world.sync(Self.arguments(["feed", "topic:wallpapers"])).status == 0)
                let topic = try #require(await world.stub.photoIDs(ofSource: "topic:wallpapers"))

                // WHEN the topic is dropped from the configuration
                #expect(try await world.sync(Self.arguments(["feed"])).status == 0)

                // THEN its photos and its place stay, shown inactive
                var status = try await Self.statusSources(world)
                #expect(status["topic:wallpapers"]?["active"] as? Bool == false)
                #expect(status["topic:wallpapers"]?["photos"] as? Int == topic.count)
                #expect(status["feed"]?["active"] as? Bool == true)

                // AND added back, it only checks its head
                await world.stub.resetRequestLog()
                #expect(try await world.sync(Self.arguments(["feed", "topic:wallpapers"])).status == 0)
                status = try await Self.statusSources(world)
                #expect(status["topic:wallpapers"]?["active"] as? Bool == true)
                let pages = await world.stub.requests().filter { $0.path == "/topics/wallpapers/photos" }
                #expect(pages.count == 1 && pages.first?.queryValue("page") == "1")
            }
        }

        @Test(arguments: StoreKind.allCases) func aSourceThatDoesNotExistIsOneLineAndTheOthersFinish(_ store: StoreKind)
            async throws
        {
            let world = try await World.start(photos: 60, store: StoreSetup(store))
            try await withTeardown(await world.stop()) {
                let result = try await world.sync(["--source", "user:nobody-here", "--source", "feed"])

                #expect(result.status == 78, "\(result.stderr)")
                let lines = result.stderr.split(separator: "\n").filter { $0.hasPrefix("photosync: ") }
                #expect(
                    lines.count == 1 && lines.first?.contains("user:nobody-here") == true
                        && lines.first?.contains("Couldn't find User") == true,
                    "\(result.stderr)")
                #expect(try await world.store().catalog.statistics().photos == 60, "the feed was synced all the same")
                let status = try await Self.statusSources(world)
                #expect(status["user:nobody-here"]?["error"] as? String != nil)
                #expect(status["feed"]?["backfill_complete"] as? Bool == true)
                // AND status says the backfill is complete but for that source, not "not started"
                let text = try await PhotosyncProcess.run([
                    "status", "--database", world.database, "--config", world.config,
                ])
                #expect(
                    text.stdout.contains("backfill        complete but for 1 failing source: user:nobody-here\n"),
                    "\(text.stdout)")
            }
        }

        @Test func aMalformedSourceIsAUsageErrorFromAFlagAndAConfigurationErrorElsewhere() async throws {
            let world = try await World.start(photos: 1)
            try await withTeardown(await world.stop()) {
                let flag = try await world.sync(["--source", "album:3"])
                #expect(flag.status == 64, "\(flag.stderr)")
                #expect(
                    flag.stderr.contains("\"album:3\" is not a known kind of source; a source is feed, user:USERNAME"))

                let environment = try await PhotosyncProcess.run(
                    await world.runArguments(),
                    environment: ["UNSPLASH_ACCESS_KEY": PhotosyncEndToEndTests.key, "PHOTOSYNC_SOURCES": "feed,user:"])
                #expect(environment.status == 78, "\(environment.stderr)")
                #expect(
                    environment.stderr.contains("PHOTOSYNC_SOURCES: sources \"user:\" needs a username after the colon")
                )
            }
        }

        @Test(arguments: StoreKind.allCases) func severalVariantsAreEachFetchedOnceAndTrackedOncePerPhoto(
            _ store: StoreKind
        ) async throws {
            let world = try await World.start(photos: 40, store: StoreSetup(store))
            try await withTeardown(await world.stop()) {
                let result = try await world.sync([
                    "--source", "feed", "--source", "topic:wallpapers", "--variant", "regular,thumb",
                ])

                #expect(result.status == 0, "\(result.stderr)")
                let store = try await world.store()
                let premium = Set(await world.stub.premiumPhotoIDs())
                let ids = Set(
                    try #require(await world.stub.photoIDs(ofSource: "feed"))
                        + (await world.stub.photoIDs(ofSource: "topic:wallpapers") ?? []))
                for id in ids.subtracting(premium) {
                    for variant in [ImageVariant.regular, .thumb] {
                        let image = try #require(
                            try await store.catalog.photo(id: id, variant: variant)?.image,
                            "\(id) has no \(variant) image")
                        #expect(image.sha256 == world.stub.expectedSHA256(photoID: id, variant: variant.rawValue))
                    }
                    #expect(await world.stub.imageRequestCount(photoID: id) == 2, "\(id): one request per variant")
                    #expect(
                        await world.stub.downloadTrackingCount(photoID: id) == 1,
                        "\(id): tracked once, whatever the variants")
                }
                #expect(try await store.catalog.statistics().imagesStored == Int64(2 * ids.subtracting(premium).count))
            }
        }

        @Test func variantNoneMirrorsMetadataOnly() async throws {
            let world = try await World.start(photos: 40)
            try await withTeardown(await world.stop()) {
                let result = try await world.sync([
                    "--source", "feed", "--source", "likes:\(world.stub.usernames[0])", "--variant", "none",
                ])

                #expect(result.status == 0, "\(result.stderr)")
                let stats = try await world.store().catalog.statistics()
                #expect(
                    stats.photos >= 40 && stats.imagesStored == 0 && stats.imagesPending == 0 && stats.imagesFailed == 0
                )
                #expect(await world.stub.imageRequestCounts().isEmpty, "no image was fetched")
                let tracked = await world.stub.requests().filter { $0.path.hasSuffix("/download") }
                #expect(tracked.isEmpty, "no download was tracked")
            }
        }

        static func path(of source: String) -> String {
            let value = source.split(separator: ":", maxSplits: 1).last.map(String.init) ?? ""
            switch source.split(separator: ":").first {
            case "user": return "/users/\(value)/photos"
            case "likes": return "/users/\(value)/likes"
            case "collection": return "/collections/\(value)/photos"
            case "topic": return "/topics/\(value)/photos"
            case "search": return "/search/photos"
            default: return "/photos"
            }
        }
    }
}

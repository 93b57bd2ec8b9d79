import ArgumentParser
import Foundation
import Logging
import PhotoStore
import PhotoStoreSQLite
import PhotosyncCLI
import UnsplashAPI
import UnsplashStub

/// `scale-load`: a mirror of the stub's feed of N photos, each with one `thumb`, stored as
/// `photosync run --once --variant thumb` (30 photos a page) stores a sync of
/// `unsplash-stub --photos N` with the same seed and image size, through the store's own
/// writes (``FeedLoader``), without HTTP and without painting a picture a photo: what
/// Benchmarks/scale.sh builds its mirrors with.
@main
struct ScaleLoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scale-load",
        abstract: "Store the stub's feed of N photos and their thumbnails as a sync of the stub would.",
        discussion: """
            Writes what `photosync run --once --variant thumb --no-download-tracking` with \
            `per_page: 30` writes from `unsplash-stub --photos N --image-size S --seed SEED` at \
            --api-base: the same photos, JSON, order, cursors and image rows, through the store's \
            page commits and image batches. Each thumbnail is the stub's for its photo (its size \
            and padding), but the picture painted in it is one of a pool of --pictures, lent round \
            robin: the oldest --pictures photos have their own. The database is opened as \
            `photosync run` opens it (migrated; an SQLite file is created) and must hold no photos.
            """)

    @Option(
        name: .customLong("database"),
        help: ArgumentHelp("The mirror to fill: an SQLite file, or a postgres:// URL.", valueName: "path|url"))
    var database: String

    @Option(help: "The number of photos in the feed (unsplash-stub --photos).")
    var photos: Int

    @Option(help: "The approximate size in bytes of a 'regular' image (unsplash-stub --image-size).")
    var imageSize = UnsplashStub.Configuration().imageSize

    @Option(help: "The stub's seed (unsplash-stub --seed).")
    var seed: UInt64 = 0

    @Option(help: "The stub's address, which the photos' URLs name (the sync's --api-base).")
    var apiBase = "http://127.0.0.1:8080"

    @Option(help: "The distinct pictures painted into the thumbnails, lent round robin.")
    var pictures = 1_000

    func validate() throws {
        guard photos >= 1 else { throw ValidationError("--photos must be at least 1") }
        guard pictures >= 1 else { throw ValidationError("--pictures must be at least 1") }
        guard URL(string: apiBase)?.host != nil else { throw ValidationError("--api-base is not a URL: \(apiBase)") }
        do {
            try stubConfiguration.validate()
        } catch {
            throw ValidationError("\(error)")
        }
    }

    private var stubConfiguration: UnsplashStub.Configuration {
        UnsplashStub.Configuration(photoCount: photos, imageSize: imageSize, seed: seed)
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let location: DatabaseLocation
        do {
            location = try DatabaseLocation(parsing: database, environment: environment)
        } catch {
            throw ValidationError("--database \(error.text)")
        }
        if case .file(let path) = location { try PhotoStore.checkDatabasePath(path) }
        var logger = Logger(label: "scale-load")
        logger.logLevel = .error
        let (store, writer, _) = try await location.openForWriting(environment: environment, logger: logger)
        let baseURL = URL(string: apiBase)!
        let loader = FeedLoader(
            feed: FeedPages(configuration: stubConfiguration, baseURL: baseURL), store: store,
            api: UnsplashAPI(baseURL: baseURL, accessKey: "scale-load"), pictures: pictures)
        let outcome: Result<FeedLoader.Summary, any Error>
        do {
            outcome = .success(try await loader.load())
        } catch {
            outcome = .failure(error)
        }
        try? store.close()
        await writer.release()
        let summary = try outcome.get()
        print("scale-load: \(summary.description) into \(location)")
    }
}

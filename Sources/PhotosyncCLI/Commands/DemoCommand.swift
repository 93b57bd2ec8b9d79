// `demo` in full with the Demo trait (the default for source builds); a pointer to it without (the Debian package).
import ArgumentParser

#if Demo
    import Basics
    import Foundation
    import PhotoStore
    import UnsplashStub

    /// `photosync demo`: the first command to try, with no key and no network. It syncs a built-in
    /// stand-in for Unsplash into a database of its own, then serves the gallery on it.
    struct DemoCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "demo",
            abstract: "Try photosync without an Unsplash key: sync a local stand-in for Unsplash, then browse it.",
            discussion: """
                Starts the Unsplash stub inside this process on a free loopback port, syncs its \
                photos into the demo database as `photosync run --once` would, showing progress, \
                then serves the gallery on it (as `photosync serve`) and prints its URL. Ctrl-C \
                stops it. Run it again and it only checks the stub for new photos.
                """)

        @Option(
            name: .customLong("database"),
            help: ArgumentHelp("The demo's database: a file, or a postgres:// URL.", valueName: "path|url"),
            completion: .file())
        var databasePath = "photosync-demo.sqlite"

        @Option(
            help: ArgumentHelp("The address to serve the gallery on; port 0 picks a free one.", valueName: "host:port"))
        var listen = "127.0.0.1:8080"

        @Option(help: ArgumentHelp("How many photos the stub offers (1-3000).", valueName: "n"))
        var photos = 300

        /// The stub's images are about this big: big enough to watch the progress, small enough
        /// for a quick first run.
        static let imageSize = 40_000

        /// What a newcomer tries once the gallery is up: another command, on what the demo
        /// stored, run as they ran the demo (from the source tree: the demo is not in the package).
        static func nextCommand(_ database: String) -> String {
            // Quoted for the shell when it holds anything but letters, digits and `-_./`.
            let plain = database.unicodeScalars.allSatisfy(Self.plainInShell.contains)
            let quoted = plain ? database : "'" + database.replacingEach("'", with: "'\\''") + "'"
            return "swift run photosync status --database " + quoted
        }

        private static let plainInShell = Set(
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./".unicodeScalars)

        func validate() throws {
            _ = try GalleryServing.address(listen)
            do {
                _ = try DatabaseLocation(parsing: databasePath, environment: ProcessInfo.processInfo.environment)
            } catch {
                throw ValidationError("--database \(error.text)")
            }
            guard (1...3_000).contains(photos) else {
                throw ValidationError("--photos must be from 1 to 3000 (got \(photos))")
            }
        }

        func run() async throws {
            let address = try GalleryServing.address(listen)
            // Any key works: the stub checks only that one is sent, and this one never leaves the process.
            let key = "photosync-demo"
            let stub = UnsplashStub(configuration: .init(photoCount: photos, accessKey: key, imageSize: Self.imageSize))
            try await reportingErrors {
                try await stub.start()
                FileHandle.standardError.write(
                    Data(
                        "photosync: demo: a local stand-in for Unsplash with \(photos) photos is at \(await stub.baseURL.absoluteString); syncing it into \(databasePath)\n"
                            .utf8))
                do {
                    let sync = try RunCommand.parse([
                        "--once", "--api-base", await stub.baseURL.absoluteString, "--allowed-image-host", "127.0.0.1",
                        "--database", databasePath, "--access-key", key, "--variant", "regular",
                    ])
                    try await sync.run()
                } catch {
                    await stub.stop()
                    throw error
                }
                await stub.stop()
            }
            try await reportingErrors {
                let environment = ProcessInfo.processInfo.environment
                let store = try await DatabaseLocation(parsing: databasePath, environment: environment)
                    .openExisting(environment: environment)
                // A sync that Ctrl-C stopped returns as if done (run --once exits 0 after a stop):
                // an unfinished backfill tells the two apart, and Ctrl-C means stop the demo.
                guard try await store.catalog.statistics().backfillComplete else { return }
                try await GalleryServing.serve(
                    store, on: address, next: "demo: try next, in another terminal: " + Self.nextCommand(databasePath))
            }
        }
    }
#else
    /// A build without the Demo trait (the Debian package) answers `demo` with where to find it.
    struct DemoCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "demo", shouldDisplay: false)

        @Argument(parsing: .allUnrecognized) var ignored: [String] = []

        func run() async throws {
            try await reportingErrors {
                throw CommandFailure(
                    code: .usage,
                    message: "this build has no demo (the package leaves out the Unsplash stub it runs); "
                        + "try it from a source checkout: swift run photosync demo")
            }
        }
    }
#endif

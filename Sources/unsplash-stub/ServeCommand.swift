import ArgumentParser
import Foundation
import UnsplashStub

/// `unsplash-stub`: serves a local Unsplash until SIGINT or SIGTERM.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unsplash-stub",
        abstract: "Serve a local, offline imitation of the Unsplash API and image CDN.",
        discussion: """
            Prints one line, 'unsplash-stub listening on http://HOST:PORT (N photos)', once it \
            accepts connections, then serves until SIGINT or SIGTERM. Point photosync's API base \
            URL at the printed address.
            """)

    @Option(help: "The IPv4 or IPv6 address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free one (see the printed line).")
    var port: UInt16 = 8080

    @Option(help: "The number of photos in the feed at start.")
    var photos = 300

    @Option(help: "Require 'Authorization: Client-ID KEY' on API requests.")
    var accessKey: String?

    @Option(help: "API requests allowed, reported as X-Ratelimit-Limit.")
    var rateLimit = 5_000

    @Option(help: "The approximate size in bytes of a 'regular' image.")
    var imageSize = 20_000

    @Option(help: "Make every N-th slot of every page an advertisement (N >= 2).")
    var sponsoredEvery: Int?

    @Option(help: "Stubs with the same seed serve the same photos and image bytes.")
    var seed: UInt64 = 0

    @OptionGroup(title: "Faults")
    var faults: FaultOptions

    var stubConfiguration: UnsplashStub.Configuration {
        UnsplashStub.Configuration(
            photoCount: photos, host: host, port: port, accessKey: accessKey, rateLimit: rateLimit,
            imageSize: imageSize, sponsoredEvery: sponsoredEvery, seed: seed)
    }

    func validate() throws {
        do {
            try stubConfiguration.validate()
        } catch let error as UnsplashStubError {
            throw ValidationError(error.localizedDescription)
        }
        try faults.check()
    }

    func run() async throws {
        try await serve()
    }

    /// Named apart from `run()`: called on a parsed command, `run()` would resolve to
    /// `ParsableCommand`'s synchronous requirement, which only prints help.
    func serve() async throws {
        let stub = UnsplashStub(configuration: stubConfiguration)
        let signals = ShutdownSignals()
        await faults.apply(to: stub, seed: seed)
        try await stub.start()
        let line = "unsplash-stub listening on \(await stub.baseURL.absoluteString) (\(await stub.photoCount) photos)\n"
        // Unbuffered: a parent process reads this line to learn the port.
        FileHandle.standardOutput.write(Data(line.utf8))
        await signals.wait()
        await stub.stop()
    }
}

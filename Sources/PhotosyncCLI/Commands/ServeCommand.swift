import ArgumentParser
import Foundation
import Gallery
import Hummingbird
import Logging
import NIOCore
import PhotoStore
import ServiceLifecycle
import UnsplashAPI

/// `photosync serve`: the read-only web gallery over the database.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Browse and search the stored photos in a web browser.",
        discussion: """
            Serves a read-only gallery: a grid of the photos, newest first, with search and \
            filters; a page for each photo with its attribution; the images; and \
            /api/photos, the objects of `list --json`. It reads the database while \
            `photosync run` writes it. Stop it with Ctrl-C (SIGINT) or SIGTERM.

            The gallery has no authentication: anyone who can reach the address sees every \
            photo. It listens on loopback unless --listen names another address.

            Under /unsplash it answers Unsplash's own API from the mirror, for clients whose \
            base URL is http://HOST:PORT/unsplash; beyond loopback it needs --mirror-client-key.
            """)

    @Option(help: ArgumentHelp("The address to serve on; port 0 picks a free one.", valueName: "host:port"))
    var listen = "127.0.0.1:8080"

    @OptionGroup var database: DatabaseOptions
    @Option(\.mirrorClientKeys) var mirrorClientKeys: [String] = []
    @Option(\.mirrorRateLimit) var mirrorRateLimit: String?
    @Option(\.mirrorImageURLs) var mirrorImageURLs: String?
    @Option(\.primaryDatabase) var primaryDatabase: String?
    @Option(\.maxReplicaLag) var maxReplicaLag: String?
    @Option(\.metricsListen) var metricsListen: String?

    func validate() throws {
        _ = try GalleryServing.address(listen)
        try check(flagsOf: self)
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        try await reportingErrors {
            let address = try GalleryServing.address(listen)
            var mirror = try mirrorConfiguration(environment: environment)
            if mirror.clientKeys.isEmpty && !address.isLoopback {
                throw CommandFailure(
                    code: .usage,
                    message: "serving beyond loopback (--listen \(address)) needs the client keys the Unsplash API "
                        + "accepts: set mirror_client_keys (--mirror-client-key)")
            }
            let serving = try servingSettings(environment: environment)
            if let metrics = serving.metricsListen { try MetricsServer.checkAvailable(metrics) }
            // Requests read at once, each on a connection of its own (a single one answered
            // them one by one); more connections than cores only wait for a core. Under a
            // writing daemon, a total, a deep page's start and a ranking may be a second old:
            // made again at each of its commits, they took most of the CPU the reads had.
            let store = try await database.openStore(
                environment: environment, readers: max(2, ProcessInfo.processInfo.activeProcessorCount * 2),
                lag: .seconds(1))
            let requests = try await requestWriters(
                for: store, primary: serving.primary, tracking: mirror.downloadTracking == .queued,
                environment: environment)
            mirror.downloadRequests = requests.downloads
            mirror.photoDetailsRequests = requests.details
            try await GalleryServing.serve(
                store, on: address, mirror: mirror, maxStandbyLag: .seconds(serving.maxReplicaLag),
                metrics: serving.metricsListen.map { ServeMetrics(store: store).server(address: $0) })
        }
    }

    /// The Unsplash API's settings; whether the sync tracks downloads and stores images is
    /// read as `run` reads it, from the environment and the configuration file.
    func mirrorConfiguration(environment: [String: String]) throws(ConfigurationError) -> MirrorConfiguration {
        let resolver = SettingsResolver(environment: environment)
        let given = flags(of: self)
        let configPath = database.configPath
        let keys = try resolver.resolve(\.mirrorClientKeys, flags: given, configPath: configPath)
        let limit = try resolver.resolve(\.mirrorRateLimit, flags: given, configPath: configPath)
        let imageURLs = try resolver.resolve(\.mirrorImageURLs, flags: given, configPath: configPath)
        let tracking = try resolver.resolve(\.downloadTracking, flags: [:], configPath: configPath)
        let variants = try resolver.resolve(\.variants, flags: [:], configPath: configPath)
        return MirrorConfiguration(
            clientKeys: Set(keys), hourlyLimit: limit,
            imageURLs: MirrorConfiguration.ImageURLs(rawValue: imageURLs) ?? .unsplash,
            downloadTracking: tracking ? .queued : .off, storesImages: !variants.isEmpty)
    }
}

/// Running the gallery for `serve` and `demo`.
enum GalleryServing {
    /// The address `text` names.
    /// - Throws: `ValidationError` (exit 64) when it is not HOST:PORT.
    static func address(_ text: String) throws -> ListenAddress {
        guard let address = ListenAddress(text) else {
            throw ValidationError("--listen must be HOST:PORT, such as 127.0.0.1:8080 or [::1]:8080 (got '\(text)')")
        }
        return address
    }

    /// Serves `store`'s gallery on `address` until SIGINT or SIGTERM, then returns, with the
    /// `metrics` server beside it when there is one. Once it accepts connections it says where on
    /// stderr: `photosync: serving the gallery at http://127.0.0.1:PORT/ ...`, and then `next`, if
    /// any, in the same write (a reader that has the first line has the second).
    /// - Throws: ``CommandFailure`` with exit 78 when the address cannot be bound.
    static func serve(
        _ store: PhotoStore, on address: ListenAddress, mirror: MirrorConfiguration = MirrorConfiguration(),
        maxStandbyLag: Duration = Gallery.defaultMaxStandbyLag, metrics: MetricsServer? = nil, next: String? = nil
    ) async throws {
        var logger = Logger(label: "photosync.gallery")
        logger.logLevel = .warning
        let gallery = Gallery(store: store, mirror: mirror, maxStandbyLag: maxStandbyLag)
        let application = gallery.application(host: address.host, port: address.port, logger: logger) {
            port in
            let line =
                "photosync: serving the gallery at http://\(address.urlHost):\(port)/ "
                + "(no authentication: anyone who reaches this address sees every photo; Ctrl-C stops it)\n"
                + (next.map { "photosync: " + $0 + "\n" } ?? "")
            FileHandle.standardError.write(Data(line.utf8))
        }
        do {
            try await ServiceGroup(
                configuration: ServiceGroupConfiguration(
                    services: [application as any Service] + (metrics.map { [$0] } ?? []),
                    gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
            ).run()
        } catch let failure as CommandFailure {
            throw failure
        } catch {
            throw CommandFailure(
                code: .config,
                message: "cannot serve the gallery on \(address): \(reason(error)); choose another --listen address")
        }
    }

    private static func reason(_ error: any Error) -> String {
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)) }
        return "\(error)"
    }
}

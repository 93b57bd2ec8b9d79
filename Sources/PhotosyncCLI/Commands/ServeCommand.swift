import ArgumentParser
import Foundation
import Gallery
import Hummingbird
import Logging
import NIOCore
import PhotoStore

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
            """)

    @Option(help: ArgumentHelp("The address to serve on; port 0 picks a free one.", valueName: "host:port"))
    var listen = "127.0.0.1:8080"

    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        _ = try GalleryServing.address(listen)
    }

    func run() async throws {
        try await reportingErrors {
            // Requests read at once, each on a connection of its own (a single one answered
            // them one by one); more connections than cores only wait for a core.
            let store = try database.openStore(
                environment: ProcessInfo.processInfo.environment,
                readers: max(2, ProcessInfo.processInfo.activeProcessorCount * 2))
            try await GalleryServing.serve(store, on: try GalleryServing.address(listen))
        }
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

    /// Serves `store`'s gallery on `address` until SIGINT or SIGTERM, then returns. Once it
    /// accepts connections it says where on stderr:
    /// `photosync: serving the gallery at http://127.0.0.1:PORT/ ...`.
    /// - Throws: ``CommandFailure`` with exit 78 when the address cannot be bound.
    static func serve(_ store: PhotoStore, on address: ListenAddress) async throws {
        var logger = Logger(label: "photosync.gallery")
        logger.logLevel = .warning
        let application = Gallery(store: store).application(host: address.host, port: address.port, logger: logger) {
            port in
            let line =
                "photosync: serving the gallery at http://\(address.urlHost):\(port)/ "
                + "(no authentication: anyone who reaches this address sees every photo; Ctrl-C stops it)\n"
            FileHandle.standardError.write(Data(line.utf8))
        }
        do {
            try await application.runService(gracefulShutdownSignals: [.sigterm, .sigint])
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

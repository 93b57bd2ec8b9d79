// swift-tools-version: 6.2
import PackageDescription

// Linked with `--static-swift-stdlib` (the Debian package's binary, the start floor), an executable
// puts every public symbol of every module in its dynamic symbol table (the toolchain's
// static-stdlib-args.lnk passes `-export-dynamic`): 54,000 in photosync. Nothing looks them up,
// but at every start the runtime calls dladdr, which walks them all (issue 54). So on Linux the
// executables export nothing; builds without `--static-swift-stdlib` never did. Linker flags of a
// target come after the toolchain's. packaging/README.md, "The start" and "Crash reports".
let exportNothing: [LinkerSetting] = [.unsafeFlags(["-Xlinker", "--no-export-dynamic"], .when(platforms: [.linux]))]

// One module per concern. Dependencies point one way:
// PhotosyncCLI -> (PhotoSync, Gallery) -> UnsplashAPI -> Networking, and
// (PhotoSync, Gallery) -> PhotoStore, which depends on none of photosync's modules but the leaves
// that everyone may use: Basics and PhotosyncModel (the values the store speaks). The store's
// drivers, PhotoStoreSQLite and PhotoStorePostgres, sit below it; only PhotosyncCLI picks one.
let package = Package(
    name: "photosync",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "photosync", targets: ["photosync"]),
        .executable(name: "unsplash-stub", targets: ["unsplash-stub"]),
        .library(name: "Networking", targets: ["Networking"]),
        .library(name: "PhotosyncModel", targets: ["PhotosyncModel"]),
        .library(name: "UnsplashAPI", targets: ["UnsplashAPI"]),
        .library(name: "PhotoStore", targets: ["PhotoStore"]),
        .library(name: "PhotoStoreSQLite", targets: ["PhotoStoreSQLite"]),
        .library(name: "PhotoStorePostgres", targets: ["PhotoStorePostgres"]),
        .library(name: "PhotoSync", targets: ["PhotoSync"]),
        .library(name: "Gallery", targets: ["Gallery"]),
    ],
    traits: [
        // `photosync demo` runs the Unsplash stub inside the process. Source builds have it; the
        // Debian package is built without it (`--disable-default-traits`), so the shipped binary
        // does not carry the stub.
        .trait(name: "Demo", description: "Include `photosync demo` and the Unsplash stub it runs."),
        .default(enabledTraits: ["Demo"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.0"),
        // The configuration file's YAML parser (ConfigurationFile says why with its basic resolver).
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        // The second store: the mirror in the operator's own PostgreSQL.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        // Named so that the transport can tell a TLS failure by its type; it comes with AsyncHTTPClient.
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.30.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // Named for the stub, which uses its types directly; it comes with Hummingbird.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // The gallery's HTML templates: Mustache escapes every value unless told otherwise.
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        // The browser test's Chrome DevTools Protocol client (a WebSocket over SwiftNIO).
        .package(url: "https://github.com/hummingbird-project/swift-websocket", from: "1.6.2"),
    ],
    targets: [
        // What the modules below and the stub share, with no dependency: hex text of a digest,
        // the fixed-window request budget.
        .target(name: "Basics"),
        // photosync's own values, which the API, the store and everyone above speak: a source
        // (`PhotoSource`), an image variant (`ImageVariant`). No dependency, so the store can
        // name them without depending on the API (docs/ARCHITECTURE.md, "Shared values").
        .target(name: "PhotosyncModel"),
        // A small, general HTTP layer: Endpoint, Provider, retries, interceptors, and the
        // AsyncHTTPClient transport. It never imports FoundationNetworking, so neither does the
        // shipped binary (the URLSession conformance is in TestSupport).
        .target(
            name: "Networking",
            dependencies: [
                "Basics",
                .product(name: "Logging", package: "swift-log"),
                // `HTTPRequest.Method`, the request method of every request.
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // Unsplash's API as photosync needs it: endpoints, DTOs, PhotoRepository.
        .target(
            name: "UnsplashAPI",
            dependencies: ["Networking", "PhotosyncModel"]
        ),
        // The store's contract: its parts as async protocols, the values they speak, and the
        // policy both drivers follow. No database library: only the command line picks a driver.
        .target(
            name: "PhotoStore",
            dependencies: [
                "Basics", "PhotosyncModel",
                // `verify` re-hashes stored images.
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The store on SQLite through GRDB, the default.
        .target(
            name: "PhotoStoreSQLite",
            dependencies: [
                "Basics", "PhotosyncModel", "PhotoStore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The store on PostgreSQL through postgres-nio.
        .target(
            name: "PhotoStorePostgres",
            dependencies: [
                "Basics", "PhotosyncModel", "PhotoStore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // TLS as libpq makes it, and the network's and TLS's failures told apart by type.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                // `verify` re-hashes stored images.
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The sync engine: page cursors, head catch-up, image queue, rate-limit budget.
        .target(
            name: "PhotoSync",
            dependencies: [
                "Networking", "UnsplashAPI", "PhotoStore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        // `photosync serve`: a read-only web gallery over the store, on Hummingbird and Mustache.
        .target(
            name: "Gallery",
            dependencies: [
                "Basics", "PhotoStore",
                // `JSONValue`: the stored JSON the Unsplash API's routes send back.
                "UnsplashAPI",
                .product(name: "Hummingbird", package: "hummingbird"),
                // `URI`, whose query the routes decode.
                .product(name: "HummingbirdCore", package: "hummingbird"),
                // The header names of Unsplash's API (`X-Ratelimit-Remaining`, `Link`).
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                // HTTP/1.0's heads, before Hummingbird turns them into versionless HTTP types.
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // The command line: run, query, status; configuration, logging, systemd integration.
        .target(
            name: "PhotosyncCLI",
            dependencies: [
                "Basics", "PhotoSync", "PhotoStore", "PhotoStoreSQLite", "PhotoStorePostgres", "UnsplashAPI",
                "Networking", "Gallery",
                // `photosync demo` runs the stub in-process; only builds with the Demo trait link it.
                .target(name: "UnsplashStub", condition: .when(traits: ["Demo"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // SIGHUP, which reloads the configuration.
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                // The metrics factory that gives each metric its HELP text.
                .product(name: "CoreMetrics", package: "swift-metrics"),
                // export compares files by SHA-256.
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            // `photosync --version` names the commit it was built from.
            plugins: ["BuildInfo"]
        ),
        .plugin(name: "BuildInfo", capability: .buildTool()),
        .executableTarget(name: "photosync", dependencies: ["PhotosyncCLI"], linkerSettings: exportNothing),
        // A local Unsplash: paginated /photos, download_location, deterministic image bytes,
        // fault switches; served with Hummingbird, the server library of the gallery too.
        .target(
            name: "UnsplashStub",
            dependencies: [
                "Basics",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            // Optimised in debug builds too: `swift run photosync demo` and the tests are debug
            // builds, and unoptimised, painting and encoding a photo's picture took 0.4 s instead
            // of 8 ms (the demo's 300 photos, two minutes instead of two seconds).
            swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]
        ),
        .executableTarget(
            name: "unsplash-stub",
            dependencies: [
                "UnsplashStub",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Benchmarks/scale.sh's mirrors: the stub's feed of N photos stored as a sync of it would
        // be, through the store's own writes, without HTTP or a picture painted a photo. Not in
        // the `photosync` product nor the Debian package.
        .executableTarget(
            name: "scale-load",
            dependencies: [
                "Basics", "Networking", "PhotoStore", "PhotoStoreSQLite", "PhotoSync", "PhotosyncCLI", "UnsplashAPI",
                "UnsplashStub",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/Loader"
        ),
        // Benchmarks/transport.sh: photosync's transport fetching and hashing a list of URLs.
        .executableTarget(name: "transport-bench", dependencies: ["Networking"], path: "Benchmarks/TransportBench"),
        // Benchmarks/query.sh: `query --id`'s work on photosync's libraries, without photosync.
        .executableTarget(
            name: "start-floor",
            dependencies: [
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Yams", package: "Yams"),
            ],
            path: "Benchmarks/StartFloor",
            linkerSettings: exportNothing
        ),

        // Test doubles shared by the test targets: MockURLSession, MockURLProtocol, TestClock, and
        // URLSession's conformance to URLSessionable (FoundationNetworking stays out of Sources).
        .target(
            name: "TestSupport",
            dependencies: [
                "Networking", "PhotosyncModel", .product(name: "Logging", package: "swift-log"),
                // The store tests' one set of photos, commits and clocks (StoreFixtures.swift), and
                // the SHA-256 text a stored image is recorded with.
                "PhotoStore", "Basics", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Tests/TestSupport",
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "NetworkingTests",
            dependencies: [
                "Networking", "TestSupport", .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // To build the transport's lower-level errors and check how each is told apart.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .testTarget(name: "BasicsTests", dependencies: ["Basics"]),
        .testTarget(name: "UnsplashAPITests", dependencies: ["UnsplashAPI", "TestSupport"]),
        // The contract's values, which need no database: search expressions and their ranking,
        // byte counts, colours.
        .testTarget(name: "PhotoStoreTests", dependencies: ["PhotoStore"]),
        // What only SQLite has: the file's migrations, its writer lock, PRAGMAs, the WAL, vacuum
        // and backup (FileStorage), query plans, GRDB's date text, the blobs' chunks.
        .testTarget(
            name: "PhotoStoreSQLiteTests",
            dependencies: [
                "PhotoStore", "PhotoStoreSQLite", "TestSupport", .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // One contract for every store: each test runs on SQLite and on a throwaway PostgreSQL.
        .testTarget(
            name: "StoreContractTests",
            dependencies: [
                "PhotoStore", "PhotoStoreSQLite", "PhotoStorePostgres", "TestSupport",
                // A test's damage to a SQLite file behind the store's back (`BehindItsBack`).
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "PhotoSyncTests",
            dependencies: [
                "PhotoSync", "UnsplashAPI", "PhotoStore", "PhotoStoreSQLite", "Networking", "TestSupport",
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                // Another connection holding the database's write lock.
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "PhotosyncCLITests",
            dependencies: [
                "PhotosyncCLI", "PhotoSync", "PhotoStore", "PhotoStoreSQLite", "UnsplashAPI", "Networking",
                "TestSupport", "Gallery",
                // The /metrics exposition, read as Prometheus would.
                .product(name: "Prometheus", package: "swift-prometheus"),
                // The metrics server over real HTTP on loopback.
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
        // The gallery over real HTTP on loopback, on a store built in a temporary directory.
        .testTarget(
            name: "GalleryTests",
            dependencies: [
                "Gallery", "PhotoStore", "PhotoStoreSQLite", "PhotoStorePostgres", "TestSupport",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                // `EmbeddedChannel`, to play a connection's events to `ClientDeparture`.
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        // The stub over real HTTP on loopback, and its executable.
        .testTarget(
            name: "UnsplashStubTests",
            dependencies: [
                "UnsplashStub", "Networking", "TestSupport", "Basics",
                .product(name: "Crypto", package: "swift-crypto"),
                // The gallery's BlurHash decoder reads the stub's `blur_hash` as a client would.
                "Gallery",
            ]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "UnsplashStub", "PhotoStore", "PhotoStoreSQLite", "PhotoStorePostgres", "TestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                // To damage a stored image on purpose, as a disk or a person might.
                .product(name: "GRDB", package: "GRDB.swift"),
                // The gallery's browser test speaks the Chrome DevTools Protocol over a WebSocket.
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

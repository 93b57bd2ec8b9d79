// swift-tools-version: 6.2
import PackageDescription

// One module per concern. Dependencies point one way:
// PhotosyncCLI -> PhotoSync -> (UnsplashAPI, PhotoStore) -> Networking.
let package = Package(
    name: "photosync",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "photosync", targets: ["photosync"]),
        .executable(name: "unsplash-stub", targets: ["unsplash-stub"]),
        .library(name: "Networking", targets: ["Networking"]),
        .library(name: "UnsplashAPI", targets: ["UnsplashAPI"]),
        .library(name: "PhotoStore", targets: ["PhotoStore"]),
        .library(name: "PhotoSync", targets: ["PhotoSync"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.0"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.0.0", traits: [.defaults, "YAML"]),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        // Named for the stub, which uses their types directly; both come with Hummingbird.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.0.0"),
    ],
    targets: [
        // A small, general HTTP layer over URLSession: Endpoint, Provider, retries, interceptors.
        .target(
            name: "Networking",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // Unsplash's API as photosync needs it: endpoints, DTOs, PhotoRepository.
        .target(
            name: "UnsplashAPI",
            dependencies: ["Networking"]
        ),
        // The SQLite database: schema, migrations, records, transactions.
        .target(
            name: "PhotoStore",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        // The sync engine: page cursors, head catch-up, image queue, rate-limit budget.
        .target(
            name: "PhotoSync",
            dependencies: [
                "Networking", "UnsplashAPI", "PhotoStore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The command line: run, query, status; configuration, logging, systemd integration.
        .target(
            name: "PhotosyncCLI",
            dependencies: [
                "PhotoSync", "PhotoStore", "UnsplashAPI", "Networking",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(name: "photosync", dependencies: ["PhotosyncCLI"]),
        // A local Unsplash: paginated /photos, download_location, deterministic image bytes,
        // fault switches; served with Hummingbird, the server library of the coming gallery too.
        .target(
            name: "UnsplashStub",
            dependencies: [
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "unsplash-stub",
            dependencies: [
                "UnsplashStub",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // Test doubles shared by the test targets: MockURLSession, MockURLProtocol, TestClock.
        .target(
            name: "TestSupport",
            dependencies: ["Networking", .product(name: "Logging", package: "swift-log")],
            path: "Tests/TestSupport",
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "NetworkingTests", dependencies: ["Networking", "TestSupport"]),
        .testTarget(name: "UnsplashAPITests", dependencies: ["UnsplashAPI", "TestSupport"]),
        .testTarget(name: "PhotoStoreTests", dependencies: ["PhotoStore"]),
        .testTarget(
            name: "PhotoSyncTests",
            dependencies: ["PhotoSync", "UnsplashAPI", "PhotoStore", "Networking", "TestSupport"]
        ),
        .testTarget(name: "PhotosyncCLITests", dependencies: ["PhotosyncCLI", "TestSupport"]),
        // The stub over real HTTP on loopback, and its executable.
        .testTarget(
            name: "UnsplashStubTests",
            dependencies: ["UnsplashStub", .product(name: "Crypto", package: "swift-crypto")]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: [
                "UnsplashStub", "PhotoStore",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

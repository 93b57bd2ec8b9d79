import Foundation
import PhotoStore
import PhotoStoreSQLite
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `photosync serve` and `photosync demo` as a person uses them: the real binary, a database
/// synced from the stub, and headless Chromium.
extension EndToEnd {
    @Suite(.serialized, .timeLimit(.minutes(5))) struct GalleryEndToEndTests {
        /// What the browser saw, gathered in the DevTools session and checked afterwards.
        struct Sight: Sendable {
            var gridImages: [[Int]] = []
            var searchURL = ""
            var searchTiles: [String] = []
            var photoURL = ""
            var attributionText = ""
            var photographerLink = ""
            var unsplashLink = ""
            var photoImageWidth = 0
        }

        @Test(arguments: StoreKind.allCases)
        func aBrowserSeesLoadedTilesNarrowsThemBySearchAndOpensAPhotoWithItsAttribution(_ store: StoreKind)
            async throws
        {
            // GIVEN `photosync serve` on a database synced from the stub
            let world = try await PhotosyncEndToEndTests.World.start(photos: 120, store: StoreSetup(store))
            try await withTeardown(await world.stop()) {
                #expect(try await world.sync().status == 0)
                let serve = try PhotosyncProcess([
                    "serve", "--listen", "127.0.0.1:0", "--database", world.database, "--config", world.config,
                ])
                var served = false
                defer { if !served { serve.signal(SIGKILL) } }
                let base = try #require(await Self.galleryURL(of: serve), "serve never said where it listens")
                let inZurich = try await world.store().catalog.photos(matching: PhotoQuery(text: "zurich")).map(\.id)
                try #require(
                    !inZurich.isEmpty && inZurich.count < 30, "the stub's world has a few photos taken in Zürich")

                // WHEN Chromium opens the grid, searches with the box, and clicks the first result
                let chromium = try await Chromium.start()
                defer { chromium.stop() }
                let screenshots = Self.buildDirectory()
                let sight = try await chromium.withPage { page in
                    var sight = Sight()
                    try await page.send("Page.enable")
                    try await page.navigate(base)
                    let images = try await page.evaluate(
                        "JSON.stringify(Array.from(document.querySelectorAll('#grid .tile img')).map(i => [i.complete ? 1 : 0, i.naturalWidth]))"
                    )
                    sight.gridImages = try JSONDecoder().decode(
                        [[Int]].self, from: Data((images as? String ?? "[]").utf8))
                    try await page.screenshot().write(to: screenshots.appending(path: "gallery-screenshot.png"))

                    _ = try await page.evaluate("document.querySelector('input[name=q]').focus()")
                    try await page.loading { try await page.type("zurich") }
                    sight.searchURL = try await page.evaluate("location.href") as? String ?? ""
                    let tiles = try await page.evaluate(
                        "JSON.stringify(Array.from(document.querySelectorAll('#grid .tile')).map(t => t.dataset.id))")
                    sight.searchTiles = try JSONDecoder().decode(
                        [String].self, from: Data((tiles as? String ?? "[]").utf8))

                    try await page.loading {
                        _ = try await page.evaluate("document.querySelector('#grid .tile a').click()")
                    }
                    sight.photoURL = try await page.evaluate("location.href") as? String ?? ""
                    sight.attributionText =
                        try await page.evaluate("document.querySelector('.attribution').textContent") as? String ?? ""
                    sight.photographerLink =
                        try await page.evaluate("document.querySelector('#photographer').href") as? String ?? ""
                    sight.unsplashLink =
                        try await page.evaluate("document.querySelector('#unsplash-page').href") as? String ?? ""
                    sight.photoImageWidth =
                        try await page.evaluate("document.querySelector('#photo').naturalWidth") as? Int ?? 0
                    try await page.screenshot().write(to: screenshots.appending(path: "gallery-photo-screenshot.png"))
                    return sight
                }

                // THEN every tile's image loaded
                #expect(sight.gridImages.count == 30, "a full first page")
                #expect(sight.gridImages.allSatisfy { $0 == [1, $0[1]] && $0[1] > 0 }, "\(sight.gridImages)")
                // AND the search box narrowed the grid to the photos FTS finds
                #expect(sight.searchURL.contains("q=zurich"))
                #expect(Set(sight.searchTiles) == Set(inZurich))
                // AND the photo page credits its photographer, linking to Unsplash with the utm parameters
                let first = try #require(sight.searchTiles.first)
                #expect(sight.photoURL == base + "photos/" + first)
                let photo = try #require(try await world.store().catalog.photo(id: first))
                #expect(sight.attributionText == "Photo by \(photo.userName ?? "") on Unsplash")
                #expect(
                    sight.photographerLink
                        == "https://unsplash.com/@\(photo.userUsername ?? "")?utm_source=photosync&utm_medium=referral")
                #expect(
                    sight.unsplashLink
                        == "https://unsplash.com/photos/\(first)?utm_source=photosync&utm_medium=referral")
                #expect(sight.photoImageWidth > 0)

                // AND serve stops on Ctrl-C with exit 0
                serve.signal(SIGINT)
                let result = await serve.result()
                served = true
                #expect(result.status == 0, "\(result.stderr)")
            }
        }

        /// A tile's picture as the browser decoded it: its pixels' size, average colour (0-255)
        /// and 8 x 8 cells (0-1, as ``DecodedPicture/cells(_:)``).
        struct TilePicture: Decodable, Sendable {
            var id: String
            var width: Int
            var height: Int
            var average: [Double]
            var cells: [Double]
        }

        /// Each tile's image drawn on a canvas at its own size and read back.
        static let tilePictures = """
            (async () => JSON.stringify(await Promise.all(Array.from(document.querySelectorAll('#grid .tile')).map(async tile => {
              const image = tile.querySelector('img');
              if (!image) return {id: tile.dataset.id, width: 0, height: 0, average: [], cells: []};
              await image.decode().catch(() => {});
              const [width, height] = [image.naturalWidth, image.naturalHeight];
              const canvas = document.createElement('canvas');
              [canvas.width, canvas.height] = [Math.max(1, width), Math.max(1, height)];
              const context = canvas.getContext('2d');
              context.drawImage(image, 0, 0);
              const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
              const average = [0, 0, 0], cells = new Array(192).fill(0), counts = new Array(64).fill(0);
              for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) {
                const at = (y * width + x) * 4, cell = Math.floor(y * 8 / height) * 8 + Math.floor(x * 8 / width);
                counts[cell]++;
                for (let c = 0; c < 3; c++) { average[c] += pixels[at + c]; cells[cell * 3 + c] += pixels[at + c]; }
              }
              return {id: tile.dataset.id, width, height, average: average.map(v => v / Math.max(1, width * height)),
                      cells: cells.map((v, i) => v / Math.max(1, counts[Math.floor(i / 3)]) / 255)};
            }))))()
            """

        @Test func theDemoShowsThirtyDifferentPicturesSaysWhatToTryNextAndStopsOnCtrlC() async throws {
            let directory = FileManager.default.temporaryDirectory.appending(
                path: "photosync-demo-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let database = directory.appending(path: "demo.sqlite").path

            // WHEN the demo runs with no key anywhere
            let demo = try PhotosyncProcess([
                "demo", "--database", database, "--listen", "127.0.0.1:0", "--photos", "45",
            ])
            var ended = false
            defer { if !ended { demo.signal(SIGKILL) } }
            let base = try #require(await Self.galleryURL(of: demo), "the demo never served the gallery")

            // THEN it has synced the stub and serves a grid of tiles
            let (body, response) = try await URLSession.shared.data(from: try #require(URL(string: base)))
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
            let page = String(decoding: body, as: UTF8.self)
            #expect(page.components(separatedBy: "class=\"tile\"").count - 1 == 30)
            #expect(page.contains("src=\"/images/"))
            let store = try PhotoStore.openExisting(path: database)
            #expect(try await store.catalog.statistics().imagesStored == 45)

            // AND, as it starts serving, it says the one command to try next, against its database
            let said = demo.stderrSoFar.split(separator: "\n").map(String.init)
            let next = try #require(said.first { $0.hasPrefix("photosync: demo: try next") }, "\(said)")
            let command = try #require(next.split(separator: ": ", maxSplits: 2).last.map(String.init))
            #expect(command.hasSuffix("swift run photosync status --database \(database)"), "\(next)")
            let status = try await PhotosyncProcess.run(["status", "--database", database])
            #expect(status.status == 0, "\(status.stderr)")
            #expect(status.stdout.contains("45"), "\(status.stdout)")

            // AND in a browser its home page is thirty pictures, each of its photo's shape and colour,
            // no two alike; a photo's page shows the image in the photo's proportions
            let chromium = try await Chromium.start()
            defer { chromium.stop() }
            let (pictures, frame) = try await chromium.withPage { page in
                try await page.send("Page.enable")
                try await page.navigate(base)
                let pictures = try JSONDecoder().decode(
                    [TilePicture].self, from: Data((try await page.evaluate(Self.tilePictures) as? String ?? "[]").utf8)
                )
                try await page.screenshot().write(to: Self.buildDirectory().appending(path: "demo-screenshot.png"))
                try await page.loading {
                    _ = try await page.evaluate("document.querySelector('#grid .tile a').click()")
                }
                let frame = try await page.evaluate(
                    "(r => JSON.stringify([r.width, r.height]))(document.querySelector('#photo').getBoundingClientRect())"
                )
                return (pictures, try JSONDecoder().decode([Double].self, from: Data((frame as? String ?? "[]").utf8)))
            }
            #expect(pictures.count == 30)
            for picture in pictures {
                let photo = try #require(try await store.catalog.photo(id: picture.id))
                let (width, height) = (try #require(photo.width), try #require(photo.height))
                #expect(picture.width > 0 && picture.height > 0, "\(picture.id) loaded")
                let (long, short) = (max(width, height), min(width, height))
                let (pictureLong, pictureShort) = (
                    max(picture.width, picture.height), min(picture.width, picture.height)
                )
                #expect(
                    pictureShort == Int((Double(pictureLong) * Double(short) / Double(long)).rounded())
                        && (picture.width > picture.height) == (width > height),
                    "\(picture.id): \(picture.width)x\(picture.height) for \(width)x\(height)")
                let color = try #require(rgb(ofHexColor: photo.color ?? ""), "\(photo.color ?? "no color")")
                #expect(
                    picture.average.count == 3
                        && zip(picture.average, [color.x, color.y, color.z]).allSatisfy { abs($0 - $1) <= 5 },
                    "\(picture.id): average \(picture.average), color \(photo.color ?? "")")
            }
            let closest = closestPair(pictures.map { ($0.id, $0.cells) })
            #expect(closest.difference >= 0.05, "the two most alike: \(closest)")
            let firstID = try #require(pictures.first?.id)
            let first = try #require(try await store.catalog.photo(id: firstID))
            let ratio = Double(try #require(first.width)) / Double(try #require(first.height))
            #expect(frame.count == 2 && abs(frame[0] / frame[1] - ratio) < 0.02 * ratio, "\(frame) for \(ratio)")

            // AND Ctrl-C stops it with exit 0
            demo.signal(SIGINT)
            let result = await demo.result()
            ended = true
            #expect(result.status == 0, "\(result.stderr)")
        }

        @Test func badInputIsOneLineAndADocumentedExitCode() async throws {
            let world = try await PhotosyncEndToEndTests.World.start(photos: 30)
            try await withTeardown(await world.stop()) {
                #expect(try await world.sync().status == 0)

                let badAddress = try await PhotosyncProcess.run([
                    "serve", "--listen", "8080", "--database", world.database, "--config", world.config,
                ])
                #expect(badAddress.status == 64)
                #expect(badAddress.stderr.contains("--listen must be HOST:PORT"))

                let missing = try await PhotosyncProcess.run([
                    "serve", "--database", world.directory.appending(path: "none.sqlite").path, "--config",
                    world.config,
                ])
                #expect(missing.status == 74)
                #expect(missing.stderr.split(separator: "\n").count == 1, "\(missing.stderr)")

                // The stub's own port is taken.
                let taken = await world.stub.baseURL
                let busy = try await PhotosyncProcess.run([
                    "serve", "--listen", "127.0.0.1:\(taken.port ?? 0)", "--database", world.database, "--config",
                    world.config,
                ])
                #expect(busy.status == 78)
                #expect(busy.stderr.split(separator: "\n").count == 1, "\(busy.stderr)")
                #expect(busy.stderr.hasPrefix("photosync: cannot serve the gallery on 127.0.0.1:\(taken.port ?? 0):"))
            }
        }

        /// The URL `serve` (or `demo`) says it serves, from its stderr; nil if it ended first.
        static func galleryURL(of process: PhotosyncProcess) async -> String? {
            var url: String?
            _ = await process.awaitLine { line in
                guard line.contains("serving the gallery at"),
                    let range = line.range(of: "http://127\\.0\\.0\\.1:[0-9]+/", options: .regularExpression)
                else { return false }
                url = String(line[range])
                return true
            }
            return url
        }

        /// The package's `.build`, where the screenshots go for people to look at.
        static func buildDirectory() -> URL {
            var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
            while directory.path != "/" {
                if directory.lastPathComponent == ".build" { return directory }
                directory.deleteLastPathComponent()
            }
            return URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appending(path: ".build")
        }
    }
}

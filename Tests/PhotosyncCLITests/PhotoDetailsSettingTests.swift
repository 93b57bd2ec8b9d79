import ArgumentParser
import Foundation
import PhotoStore
import PhotoStoreSQLite
import PhotoSync
import Testing

@testable import PhotosyncCLI

/// `photo_details`: its layers, its errors, and where it goes (the engine, serve, query).
@Suite struct PhotoDetailsSettingTests {
    @Test func flagBeatsVariableBeatsFileBeatsTheDefaultAndTheEngineGetsIt() throws {
        let directory = TemporaryDirectory()
        let file = directory.write("photosync.yaml", "photo_details: none\n")
        let variable = ["PHOTOSYNC_PHOTO_DETAILS": "all"]

        #expect(
            try resolveSettings(["--photo-details", "on-demand", "--config", file], environment: variable)
                .photoDetails == .onDemand)
        #expect(try resolveSettings(["--config", file], environment: variable).photoDetails == .all)
        #expect(try resolveSettings(["--config", file]).photoDetails == PhotoDetailsMode.none)
        #expect(try resolveSettings([]).photoDetails == .onDemand, "the default")
        #expect(SyncConfiguration(try resolveSettings(["--photo-details", "all"]), once: true).photoDetails == .all)
    }

    @Test func aValueThatIsNoneOfTheThreeIsRefusedNamingWhereItCameFrom() throws {
        let error = resolutionError(environment: ["PHOTOSYNC_PHOTO_DETAILS": "some"])
        #expect(error?.exitCode == .config)
        #expect(error?.source == "PHOTOSYNC_PHOTO_DETAILS")
        #expect(error?.message.contains("must be none, on-demand or all") == true, "\(String(describing: error))")
        #expect(throws: (any Error).self) { try SettingsOptions.parse(["--photo-details", "All"]) }
    }

    @Test func serveRecordsRequestsUnlessThereAreNoDetailsToFetch() async throws {
        let directory = TemporaryDirectory()
        let path = directory.path + "/photos.sqlite"
        let store = try PhotoStore(path: path)
        defer { try? store.close() }
        let none = directory.write("none.yaml", "photo_details: none\n")
        let all = directory.write("all.yaml", "photo_details: all\n")

        func writers(_ arguments: [String], tracking: Bool = true) async throws -> (
            downloads: (any DownloadRequests)?, details: (any PhotoDetailsRequests)?
        ) {
            try await ServeCommand.parse(arguments).requestWriters(
                for: store, primary: nil, tracking: tracking, environment: [:])
        }
        let withNone = try await writers(["--config", none])
        #expect(withNone.details == nil && withNone.downloads != nil)
        let withAll = try await writers(["--config", all])
        #expect(withAll.details != nil)
        try withAll.details?.close()
        let byDefault = try await writers([])
        #expect(byDefault.details != nil, "on-demand")
        try byDefault.details?.close()
        let neither = try await writers(["--config", none], tracking: false)
        #expect(neither.details == nil && neither.downloads == nil)
    }

    @Test func queryShowsTheCameraThePlaceAndTheTagsOnOneLineEach() {
        let json = #"""
            {"id":"a","exif":{"make":"Leica","model":"Leica M6","exposure_time":"1/1000","aperture":"4",
             "focal_length":"50.0","iso":400},
             "location":{"name":"Cappadocia, Türkei","city":null,"country":"Türkei"},
             "tags":[{"title":"balloon"},{"title":"two\nlines"}]}
            """#
        let details = StoredPhotoDetails(json: Data(json.utf8), fetchedAt: Date(timeIntervalSince1970: 0))
        #expect(
            QueryCommand.detailsText(details) == """

                  camera      Leica M6, 1/1000 s, f/4, 50.0 mm, ISO 400
                  location    Cappadocia, Türkei
                  tags        balloon, two lines
                  details     fetched 1970-01-01T00:00:00Z
                """)
        #expect(QueryCommand.detailsText(nil) == "")
    }
}

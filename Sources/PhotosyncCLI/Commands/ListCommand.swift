import ArgumentParser
import Basics
import Foundation
import Gallery
import PhotoStore
import UnsplashAPI

/// `photosync list`: the stored photos a few filters select, as a table, JSON Lines, CSV or ids.
struct ListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List stored photos, filtered and sorted, as a table, JSON Lines, CSV or ids.",
        discussion: """
            Reads the database while `photosync run` writes it. Dates are YYYY-MM-DD (UTC) or \
            ISO 8601 date-times; --until includes the whole day it names.
            """)

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var listing: ListingOptions

    func validate() throws {
        _ = try listing.query(text: nil)
    }

    func run() async throws {
        try await reportingErrors { try await listing.list(text: nil, from: database) }
    }
}

/// `photosync search TEXT`: full-text search over the stored photos, best match first.
struct SearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "search",
        abstract: "Search stored photos by their words: description, photographer, location, tags.",
        discussion: """
            TEXT is searched over the description, the alt description, the photographer's name \
            and username, the location and the tag titles. It takes words (all must match), \
            "quoted phrases", prefix* and AND, OR, NOT. Results come best match first (the words \
            in the descriptions over those in the tags and the name) unless --sort says \
            otherwise. The filters and outputs are those of list.
            """)

    @Argument(help: "What to search for.")
    var text: String

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var listing: ListingOptions

    func validate() throws {
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ValidationError("the search text is empty")
        }
        _ = try listing.query(text: text)
    }

    func run() async throws {
        try await reportingErrors { try await listing.list(text: text, from: database) }
    }
}

/// The filters, order, paging and output formats `list` and `search` share.
struct ListingOptions: ParsableArguments {
    enum Output: String, EnumerableFlag {
        case table, json, csv, ids

        static func help(for value: Output) -> ArgumentHelp? {
            switch value {
            case .table: "A table that fits the terminal (the default)."
            case .json: "JSON Lines: one object a photo."
            case .csv: "CSV with a header line."
            case .ids: "Only the ids, one a line, for pipes."
            }
        }
    }

    @Option(help: ArgumentHelp("Only this photographer's photos.", valueName: "username"))
    var user: String?

    @Option(help: ArgumentHelp("Only photos this source listed, such as feed or user:ann.", valueName: "source"))
    var source: String?

    @Option(help: ArgumentHelp("Only landscape, portrait or squarish photos.", valueName: "orientation"))
    var orientation: PhotoQuery.Orientation?

    @Option(help: ArgumentHelp("Only photos created on or after this date.", valueName: "date"))
    var since: String?

    @Option(help: ArgumentHelp("Only photos created on or before this date.", valueName: "date"))
    var until: String?

    @Option(help: ArgumentHelp("newest, oldest, likes or relevance (search's default).", valueName: "order"))
    var sort: PhotoQuery.Sort?

    @Option(help: ArgumentHelp("At most this many photos.", valueName: "n"))
    var limit: Int?

    @Option(help: ArgumentHelp("Skip this many photos first.", valueName: "n"))
    var offset: Int = 0

    @Flag var output: Output = .table

    /// The store's query for these options, best match first when there is a search `text`
    /// and newest first otherwise, unless --sort says; throws a `ValidationError` for a bad value.
    func query(text: String?) throws -> PhotoQuery {
        if let limit, limit < 0 { throw ValidationError("--limit must not be negative (got \(limit))") }
        if offset < 0 { throw ValidationError("--offset must not be negative (got \(offset))") }
        return PhotoQuery(
            text: text, username: user, source: source, orientation: orientation,
            since: try since.map { try Self.date($0, option: "--since", endOfDay: false) },
            until: try until.map { try Self.date($0, option: "--until", endOfDay: true) },
            sort: sort ?? (text == nil ? .newest : .relevance), limit: limit, offset: offset)
    }

    /// Prints the photos these options select from `database`.
    func list(text: String?, from database: DatabaseOptions) async throws {
        let store = try await database.openStore(environment: ProcessInfo.processInfo.environment)
        write(try await store.catalog.photos(matching: try query(text: text)))
    }

    /// Prints `photos` in the chosen format.
    func write(_ photos: [PhotoSummary]) {
        let lines: [String] =
            switch output {
            case .table: ListFormat.table(photos, width: Terminal.columns())
            case .json: photos.map(ListFormat.jsonLine)
            case .csv: [ListFormat.csvHeader] + photos.map(ListFormat.csvLine)
            case .ids: photos.map(\.id)
            }
        if !lines.isEmpty {
            FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
        }
    }

    /// `YYYY-MM-DD` (UTC midnight; with `endOfDay`, the next midnight) or an ISO 8601 date-time.
    static func date(_ text: String, option: String, endOfDay: Bool) throws -> Date {
        if let day = try? Date(text, strategy: Date.ISO8601FormatStyle().year().month().day()) {
            return endOfDay ? day.addingTimeInterval(86_400) : day
        }
        if let instant = try? Date(text, strategy: .iso8601) { return instant }
        throw ValidationError("\(option) must be a date such as 2024-01-31 or 2024-01-31T12:00:00Z (got '\(text)')")
    }
}

extension PhotoQuery.Orientation: ExpressibleByArgument {}
extension PhotoQuery.Sort: ExpressibleByArgument {}

/// The output formats of `list` (the store's own `PhotoListing` finds the photos they print).
enum ListFormat {
    static func jsonLine(_ photo: PhotoSummary) -> String {
        PhotoListingJSON.line(photo)
    }

    /// The fields `list --json` prints for a photo: the gallery's `/api/photos` shares them.
    static func jsonObject(_ photo: PhotoSummary) -> JSONValue {
        // The gallery's encoder makes the object; export's manifest nests it in JSON of its own.
        let encoded = Data(PhotoListingJSON.line(photo).utf8)
        return (try? JSONDecoder().decode(JSONValue.self, from: encoded)) ?? .null
    }

    static let csvHeader =
        "id,created_at,width,height,color,likes,description,alt_description,user_username,user_name,sources,image_variant,image_content_type,image_bytes,image_sha256"

    static func csvLine(_ photo: PhotoSummary) -> String {
        let fields: [String?] = [
            photo.id, photo.createdAt?.iso8601Text, photo.width.map(String.init), photo.height.map(String.init),
            photo.color, photo.likes.map(String.init), photo.description, photo.altDescription,
            photo.userUsername, photo.userName, photo.sources.joined(separator: " "),
            photo.image?.variant.rawValue, photo.image?.contentType, photo.image.map { String($0.byteCount) },
            photo.image?.sha256,
        ]
        return fields.map { csvField($0 ?? "") }.joined(separator: ",")
    }

    /// RFC 4180: quoted when it holds a comma, a quote or a line break; quotes doubled.
    static func csvField(_ text: String) -> String {
        // By scalars: a comma or a quote with a combining mark after it is one `Character`.
        guard text.unicodeScalars.contains(where: { $0 == "," || $0 == "\"" || Character($0).isNewline }) else {
            return text
        }
        return "\"" + text.replacingEach("\"", with: "\"\"") + "\""
    }

    /// Id, date, photographer, size, likes and as much of the description as `width` leaves.
    static func table(_ photos: [PhotoSummary], width: Int) -> [String] {
        let header = ["ID", "CREATED", "PHOTOGRAPHER", "SIZE", "LIKES"]
        let rows = photos.map { photo in
            [
                plain(photo.id),
                photo.createdAt.map { String($0.iso8601Text.prefix(10)) } ?? "-",
                plain(photo.userName ?? photo.userUsername ?? "-"),
                photo.width.flatMap { w in photo.height.map { "\(w)x\($0)" } } ?? "-",
                photo.likes.map(String.init) ?? "-",
            ]
        }
        var widths = header.map(\.count)
        for row in rows {
            for (column, cell) in row.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        widths[2] = min(widths[2], 24)
        let fixed = widths.reduce(0, +) + 2 * widths.count
        let room = max(0, width - fixed)
        func line(_ cells: [String], _ description: String) -> String {
            var text = zip(cells, widths).enumerated().map { column, pair in
                let cell = cut(pair.0, to: pair.1)
                return column == 4
                    ? String(repeating: " ", count: pair.1 - cell.count) + cell
                    : cell.padding(toLength: pair.1, withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
            if room > 0 { text += "  " + cut(description, to: room) }
            return text.trimmingCharacters(in: .whitespaces)
        }
        return [line(header, "DESCRIPTION")]
            + zip(rows, photos).map { row, photo in
                line(row, DisplayText.oneLine(photo.description ?? photo.altDescription ?? ""))
            }
    }

    /// Text from the API as it may reach a terminal: control characters, which could carry
    /// escape sequences, become spaces.
    static func plain(_ text: String) -> String {
        String(
            String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
    }

    private static func cut(_ text: String, to width: Int) -> String {
        text.count <= width ? text : String(text.prefix(max(0, width - 1))) + "…"
    }
}

/// The terminal's width, for tables.
enum Terminal {
    static func columns(environment: [String: String] = ProcessInfo.processInfo.environment) -> Int {
        var size = winsize()
        if isatty(STDOUT_FILENO) == 1, ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 {
            return Int(size.ws_col)
        }
        return environment["COLUMNS"].flatMap(Int.init) ?? 120
    }
}

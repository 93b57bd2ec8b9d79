import ArgumentParser
import Foundation
import Gallery
import PhotoStore
import UnsplashAPI

/// `photosync query`: one stored photo, its image's metadata, and optionally its bytes.
struct QueryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query",
        abstract: "Show a stored photo, or write its image to a file.",
        discussion: "Exits 1 when no photo has that id. Reads the database while `photosync run` writes it.")

    // About 1 in 64 Unsplash ids begins with "-": the value after --id is taken as it is.
    @Option(parsing: .unconditional, help: ArgumentHelp("The photo's Unsplash id, e.g. z3htkdHUh5w.", valueName: "id"))
    var id: String

    @OptionGroup var database: DatabaseOptions

    @Flag(help: "Print the photo's API fields as JSON, plus \"image\": {variant, content_type, bytes, sha256}.")
    var json = false

    @Option(help: ArgumentHelp("Write the image's bytes to this file, or to standard output for -.", valueName: "file"))
    var output: String?

    /// `--output -`: the image's bytes are all that goes to standard output.
    private var toStandardOutput: Bool { output == "-" }

    func validate() throws {
        // Spaces and tabs only (Foundation's `.whitespaces`), tested without bridging to
        // NSString, whose trimming made three scans of the binary's conformance records.
        if id.unicodeScalars.allSatisfy({ $0.properties.generalCategory == .spaceSeparator || $0 == "\t" }) {
            throw ValidationError("--id must not be empty")
        }
        if toStandardOutput && json {
            throw ValidationError(
                "--json cannot be combined with --output -, which writes the image to standard output")
        }
    }

    func run() async throws {
        try await reportingErrors {
            let store = try await database.openStore(environment: ProcessInfo.processInfo.environment)
            guard let photo = try await store.catalog.photo(id: id) else {
                throw CommandFailure(code: .notFound, message: "no photo with id \(id) in \(store.path)")
            }
            if toStandardOutput {
                guard
                    try await store.archive.writeImage(
                        photoID: photo.id, variant: photo.image?.variant, to: .standardOutput, named: "standard output")
                        != nil
                else {
                    throw try await Self.noStoredImage(photo, store: store)
                }
                return
            }
            if let output {
                let destination = URL(fileURLWithPath: output)
                guard
                    let written = try await store.archive.writeImage(
                        photoID: photo.id, variant: photo.image?.variant, to: destination)
                else {
                    throw try await Self.noStoredImage(photo, store: store)
                }
                if !json {
                    print("wrote \(written) bytes to \(output)")
                }
            }
            let details = try await store.photoDetails.details(photoID: photo.id)
            print(json ? try Self.json(photo, details: details) : Self.text(photo) + Self.detailsText(details))
        }
    }

    /// What becomes of an Unsplash+ photo's image.
    static let plusImage = "is an Unsplash+ photo: its image needs a paid licence and is not downloaded"

    /// Exit 1 either way: the image is not stored yet (or never will be, for an Unsplash+
    /// photo), or it was pruned (its bytes freed to stay
    /// within `storage_limit`), which the message says with what the image was.
    static func noStoredImage(_ photo: StoredPhoto, store: PhotoStore) async throws -> CommandFailure {
        if photo.isPlus {
            return CommandFailure(code: .notFound, message: "photo \(photo.id) \(Self.plusImage)")
        }
        guard let pruned = try await store.archive.prunedImage(photoID: photo.id, variant: nil) else {
            return CommandFailure(code: .notFound, message: "photo \(photo.id) has no stored image yet")
        }
        return CommandFailure(
            code: .notFound,
            message: "photo \(photo.id)'s \(pruned.variant) image was pruned to stay within storage_limit "
                + "(\(ByteCount.text(pruned.byteCount)), sha256 \(pruned.sha256))")
    }

    /// The API's fields as stored: the photo's full object when it is stored (`photo_details`),
    /// else its list version; plus what photosync knows of the image, and when the full object
    /// was fetched (`details_fetched_at`, null when none is stored).
    static func json(_ photo: StoredPhoto, details: StoredPhotoDetails? = nil) throws -> String {
        var object: [String: JSONValue] = [:]
        if case .object(let fields) = try JSONDecoder().decode(JSONValue.self, from: details?.json ?? photo.json) {
            object = fields
        }
        object["details_fetched_at"] = details?.fetchedAt.map { .string($0.iso8601Text) } ?? .null
        object["image"] =
            photo.image.map { image in
                .object([
                    "variant": .string(image.variant.rawValue),
                    "content_type": .string(image.contentType),
                    "bytes": .int(image.byteCount),
                    "sha256": .string(image.sha256),
                ])
            } ?? .null
        return try JSONOutput.string(.object(object))
    }

    static func text(_ photo: StoredPhoto) -> String {
        var lines = [
            DisplayText.oneLine(photo.id) + (photo.altDescription.map { "  " + DisplayText.oneLine($0) } ?? "")
        ]
        let by = [photo.userName, photo.userUsername.map { "@\($0)" }].compactMap { $0 }.map(DisplayText.oneLine)
            .joined(separator: " ")
        if !by.isEmpty { lines.append("  by          \(by)") }
        if let width = photo.width, let height = photo.height { lines.append("  size        \(width) x \(height)") }
        if let color = photo.color { lines.append("  color       \(color)") }
        if let likes = photo.likes { lines.append("  likes       \(likes)") }
        if let created = photo.createdAt { lines.append("  created     \(created.iso8601Text)") }
        if let description = photo.description.map({ DisplayText.field($0, indent: 14) }), !description.isEmpty {
            lines.append("  description \(description)")
        }
        let attribution = Attribution(photoID: photo.id, username: photo.userUsername, name: photo.userName)
        lines.append("  page        \(attribution.photoURL)")
        if photo.isSponsored { lines.append("  sponsored   yes") }
        if let image = photo.image {
            let size = ByteCount.text(image.byteCount)
            // The variant's raw value, not the enum interpolated: that goes through
            // `String(describing:)`, whose dynamic casts scan the binary's conformance records.
            let variant = image.variant.rawValue
            lines.append("  image       \(variant), \(image.contentType), \(size), sha256 \(image.sha256)")
        } else if photo.isPlus {
            lines.append("  image       not downloaded: an Unsplash+ photo, whose image needs a paid licence")
        } else {
            lines.append("  image       not stored yet")
        }
        return lines.joined(separator: "\n")
    }
}

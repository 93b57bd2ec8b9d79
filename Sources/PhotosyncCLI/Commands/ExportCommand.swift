import ArgumentParser
import Basics
import Crypto
import Foundation
import Gallery
import PhotoStore
import UnsplashAPI

/// `photosync export --to DIR`: the selected photos' images as files, and their metadata and
/// attribution as JSON Lines.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write stored images to a directory, with their metadata and attribution.",
        discussion: """
            Writes DIR/<id>.<ext> for each selected photo with a stored image (the extension from \
            its content type), and DIR/photos.jsonl with each one's metadata and the attribution \
            Unsplash asks for. A file already there with the same SHA-256 is left alone, so a \
            second export writes nothing. Files are written under a temporary name and renamed \
            when complete. Takes list's filters, or --search TEXT.
            """)

    @OptionGroup var database: DatabaseOptions
    @OptionGroup var listing: ListingOptions

    @Option(
        help: ArgumentHelp("The directory to write to; created if missing.", valueName: "dir"), completion: .directory)
    var to: String

    @Option(help: ArgumentHelp("Export the photos this full-text search finds (see search).", valueName: "text"))
    var search: String?

    func validate() throws {
        guard !to.isEmpty else { throw ValidationError("--to needs a directory") }
        _ = try listing.query(text: search)
    }

    func run() async throws {
        try await reportingErrors {
            let store = try await database.openStore(environment: ProcessInfo.processInfo.environment)
            let selected = try await store.catalog.photos(matching: try listing.query(text: search))
            let exporter = try PhotoExporter(directory: URL(fileURLWithPath: to), store: store)
            let interactive = isatty(STDERR_FILENO) == 1
            let report = try await exporter.export(selected) { done, total in
                guard interactive else { return }
                FileHandle.standardError.write(Data("\r\u{1B}[2Kexporting \(done)/\(total)".utf8))
            }
            if interactive { FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8)) }
            let pruned = report.pruned > 0 ? ", \(report.pruned) pruned (storage_limit)" : ""
            print(
                "exported: \(report.written) written, \(report.unchanged) unchanged, \(report.withoutImage) without a stored image\(pruned), to \(to)"
            )
        }
    }
}

/// Writes photos' images and `photos.jsonl` into one directory, never outside it, never leaving a
/// half-written file under a final name.
struct PhotoExporter {
    struct Report: Equatable {
        var written = 0
        var unchanged = 0
        var withoutImage = 0
        /// Of `withoutImage`, those whose image was pruned to stay within `storage_limit`.
        var pruned = 0
    }

    let directory: URL
    let store: PhotoStore

    /// - Throws: ``CommandFailure`` with exit 73 when `directory` cannot be created or is not a
    ///   writable directory.
    init(directory: URL, store: PhotoStore) throws {
        self.directory = directory.standardizedFileURL
        self.store = store
        do {
            try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
        } catch {
            throw CommandFailure(code: .cannotCreate, message: "cannot create \(directory.path): \(Self.reason(error))")
        }
        guard access(self.directory.path, W_OK | X_OK) == 0 else {
            throw CommandFailure(
                code: .cannotCreate, message: "cannot write to \(directory.path): \(String(cString: strerror(errno)))")
        }
    }

    func export(_ photos: [PhotoSummary], progress: (Int, Int) -> Void) async throws -> Report {
        var report = Report()
        var lines: [String] = []
        for (index, photo) in photos.enumerated() {
            progress(index, photos.count)
            guard let image = photo.image, let name = Self.fileName(id: photo.id, contentType: image.contentType) else {
                report.withoutImage += 1
                if photo.image == nil, try await store.archive.prunedImage(photoID: photo.id, variant: nil) != nil {
                    report.pruned += 1
                }
                continue
            }
            let destination = directory.appendingPathComponent(name)
            if try sha256(of: destination) == image.sha256 {
                report.unchanged += 1
            } else {
                try await writeAtomically(to: destination) { temporary in
                    _ = try await store.archive.writeImage(photoID: photo.id, variant: image.variant, to: temporary)
                }
                report.written += 1
            }
            lines.append(try attributionLine(photo, file: name))
        }
        progress(photos.count, photos.count)
        let manifest = directory.appendingPathComponent("photos.jsonl")
        let content = Data(lines.map { $0 + "\n" }.joined().utf8)
        if (try? Data(contentsOf: manifest)) != content {
            try await writeAtomically(to: manifest) { temporary in try content.write(to: temporary) }
        }
        return report
    }

    /// `<id>.<ext>`, or nil for an id that is not Unsplash's alphabet (`A-Z a-z 0-9 _ -`): an id
    /// comes from the API, and must never name a path outside the directory.
    static func fileName(id: String, contentType: String) -> String? {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
        guard !id.isEmpty, id.count <= 128, id.allSatisfy(allowed.contains), !id.hasPrefix("-") || id.count > 1 else {
            return nil
        }
        let essence = contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        let ext =
            switch essence {
            case "image/jpeg", "image/jpg": "jpg"
            case "image/png": "png"
            case "image/webp": "webp"
            case "image/avif": "avif"
            case "image/gif": "gif"
            default: "bin"
            }
        return "\(id).\(ext)"
    }

    /// Metadata and attribution, as Unsplash's guidelines ask: the photographer's name and
    /// profile, the photo's page, both with photosync's utm parameters.
    private func attributionLine(_ photo: PhotoSummary, file: String) throws -> String {
        let attribution = Attribution(photoID: photo.id, username: photo.userUsername, name: photo.userName)
        let object: JSONValue = .object([
            "file": .string(file),
            "photo": ListFormat.jsonObject(photo),
            "attribution": .object([
                "text": .string(attribution.text),
                "photographer": .string(attribution.photographer),
                "photographer_url": attribution.photographerURL.map(JSONValue.string) ?? .null,
                "photo_url": .string(attribution.photoURL),
                "unsplash_url": .string(attribution.unsplashURL),
            ]),
        ])
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(object), as: UTF8.self)
    }

    /// The SHA-256 of the file at `url`, read 1 MiB at a time; nil when there is none.
    private func sha256(of url: URL) throws -> String? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
        }
        return Hex.string(hasher.finalize())
    }

    /// Writes through a temporary file in the same directory, renamed over `destination` only
    /// once complete and flushed: a full disk or a kill leaves the old file or none, never half.
    private func writeAtomically(to destination: URL, _ write: (URL) async throws -> Void) async throws {
        let temporary = directory.appendingPathComponent(
            ".\(destination.lastPathComponent).\(UUID().uuidString).partial")
        do {
            try await write(temporary)
            let handle = try FileHandle(forWritingTo: temporary)
            try handle.synchronize()
            try handle.close()
            guard rename(temporary.path, destination.path) == 0 else {
                throw CocoaError(
                    .fileWriteUnknown, userInfo: [NSLocalizedFailureReasonErrorKey: String(cString: strerror(errno))])
            }
        } catch {
            unlink(temporary.path)
            throw CommandFailure(code: .ioError, message: "cannot write \(destination.path): \(Self.reason(error))")
        }
    }

    private static func reason(_ error: any Error) -> String {
        if let error = error as? StoreError { return error.localizedDescription }
        return (error as NSError).localizedFailureReason ?? error.localizedDescription
    }
}

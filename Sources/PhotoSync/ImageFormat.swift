import Foundation

/// The image formats photosync stores, told apart by their first bytes, so that a `200` answer
/// carrying an HTML error page or a JSON body is never stored as a photo.
enum ImageFormat: String, CaseIterable, Sendable {
    case jpeg, png, webp, avif, gif

    /// The canonical `Content-Type`.
    var mediaType: String { "image/\(rawValue)" }

    /// The format whose signature `prefix` begins with.
    init?(sniffing prefix: Data) {
        let bytes = [UInt8](prefix.prefix(32))
        func at(_ offset: Int, _ signature: String) -> Bool {
            let expected = Array(signature.utf8)
            return bytes.count >= offset + expected.count && Array(bytes[offset..<offset + expected.count]) == expected
        }
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if at(0, "GIF87a") || at(0, "GIF89a") {
            self = .gif
        } else if at(0, "RIFF"), at(8, "WEBP") {
            self = .webp
        } else if at(4, "ftyp"), at(8, "avif") || at(8, "avis") {
            self = .avif
        } else {
            return nil
        }
    }

    /// The format a `Content-Type` names, ignoring parameters and case (`image/jpg` too).
    init?(mediaType: String) {
        let essence = mediaType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        switch essence {
        case "image/jpeg", "image/jpg", "image/pjpeg": self = .jpeg
        case "image/png": self = .png
        case "image/webp": self = .webp
        case "image/avif": self = .avif
        case "image/gif": self = .gif
        default: return nil
        }
    }

    /// The format of a body, or why it is not an image photosync stores: its first bytes must
    /// be one of the formats, and a `Content-Type`, when sent, must name that same format.
    static func identify(contentType: String?, prefix: Data) -> Result<ImageFormat, Mismatch> {
        guard let sniffed = ImageFormat(sniffing: prefix) else {
            return .failure(Mismatch(contentType: contentType, sniffed: nil))
        }
        if let contentType, ImageFormat(mediaType: contentType) != sniffed {
            return .failure(Mismatch(contentType: contentType, sniffed: sniffed))
        }
        return .success(sniffed)
    }

    struct Mismatch: Error, CustomStringConvertible {
        var contentType: String?
        var sniffed: ImageFormat?

        var description: String {
            let declared = contentType.map { "Content-Type \($0.prefix(60))" } ?? "no Content-Type"
            let found = sniffed.map { "its bytes are \($0.rawValue.uppercased())" }
                ?? "its bytes are not JPEG, PNG, WebP, AVIF or GIF"
            return "the answer is not an image it can store: \(declared), but \(found)"
        }
    }
}

import Foundation

/// The image formats photosync stores, told apart by their first bytes, so that a `200` answer
/// carrying an HTML error page or a JSON body is never stored as a photo.
package enum ImageFormat: String, CaseIterable, Sendable {
    case jpeg, png, webp, avif, gif

    /// The canonical `Content-Type`.
    package var mediaType: String { "image/\(rawValue)" }

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
    /// be one of the formats, a `Content-Type`, when sent, must name that same format, and the
    /// body must end as that format ends (see ``isComplete(prefix:suffix:byteCount:)``).
    package static func identify(contentType: String?, prefix: Data, suffix: Data, byteCount: Int64) -> Result<
        ImageFormat, Mismatch
    > {
        guard let sniffed = ImageFormat(sniffing: prefix) else {
            return .failure(Mismatch(contentType: contentType, sniffed: nil))
        }
        if let contentType, ImageFormat(mediaType: contentType) != sniffed {
            return .failure(Mismatch(contentType: contentType, sniffed: sniffed))
        }
        guard sniffed.isComplete(prefix: prefix, suffix: suffix, byteCount: byteCount) else {
            return .failure(Mismatch(contentType: contentType, sniffed: sniffed, incomplete: true))
        }
        return .success(sniffed)
    }

    /// Whether a body that begins as this format also ends as it must: a server that
    /// understates its `Content-Length` hands over a cut image that passes every other check.
    /// JPEG ends with its EOI marker (FF D9), PNG with its IEND chunk, GIF with its trailer (3B),
    /// and a WebP file is as long as its RIFF header says. The last 32 bytes are searched, so a
    /// little padding after the marker is tolerated. AVIF has no end marker to check.
    func isComplete(prefix: Data, suffix: Data, byteCount: Int64) -> Bool {
        let tail = [UInt8](suffix)
        func tailContains(_ marker: [UInt8]) -> Bool {
            guard tail.count >= marker.count else { return false }
            return (0...(tail.count - marker.count)).contains { Array(tail[$0..<$0 + marker.count]) == marker }
        }
        switch self {
        case .jpeg: return tailContains([0xFF, 0xD9])
        case .png: return tailContains(Array("IEND".utf8))
        case .gif: return tail.suffix(4).contains(0x3B)
        case .webp:
            let head = [UInt8](prefix)
            guard head.count >= 8 else { return false }
            let declared = Int64(head[4]) | Int64(head[5]) << 8 | Int64(head[6]) << 16 | Int64(head[7]) << 24
            return declared + 8 == byteCount || declared + 9 == byteCount
        case .avif: return true
        }
    }

    package struct Mismatch: Error, CustomStringConvertible {
        var contentType: String?
        var sniffed: ImageFormat?
        var incomplete = false

        package var description: String {
            if incomplete, let sniffed {
                return
                    "the \(sniffed.rawValue.uppercased()) image is cut short: it does not end as a \(sniffed.rawValue.uppercased()) file ends"
            }
            let declared = contentType.map { "Content-Type \($0.prefix(60))" } ?? "no Content-Type"
            let found =
                sniffed.map { "its bytes are \($0.rawValue.uppercased())" }
                ?? "its bytes are not JPEG, PNG, WebP, AVIF or GIF"
            return "the answer is not an image it can store: \(declared), but \(found)"
        }
    }
}

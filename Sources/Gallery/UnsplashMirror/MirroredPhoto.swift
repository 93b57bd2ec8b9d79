import Foundation
import NIOCore
import PhotoStore
import UnsplashAPI

/// A stored photo as the mirror sends it: the JSON Unsplash sent, with its API links on the
/// mirror (`links.download_location`, `links.self`, and those of its user objects: see
/// `MirroredPhoto+Links.swift`), and with `urls` on the mirror's stored images when
/// ``MirrorConfiguration/ImageURLs/local`` says so. The photographer's name and page and the
/// photo's page (`links.html`) stay Unsplash's: attribution is never rewritten.
struct MirroredPhoto {
    /// The mirror's origin, `http://HOST:PORT`, as the client reached it.
    let origin: String
    let imageURLs: MirrorConfiguration.ImageURLs
    /// `origin` as the inside of a JSON string literal, made once for a request's photos.
    let originInJSON: [UInt8]

    init(origin: String, imageURLs: MirrorConfiguration.ImageURLs) {
        self.origin = origin
        self.imageURLs = imageURLs
        originInJSON = Self.escapedForJSON(origin)
    }

    /// `json` rewritten, as the text to send; nil when it is not a JSON object.
    func text(_ json: Data, id: String, storedVariants: [StoredImage]) -> Data? {
        switch rewriting(json, id: id, storedVariants: storedVariants) {
        case .edits(let edits)?: JSONSpans.replacing(edits, in: json)
        case .whole(let text)?: text
        case nil: nil
        }
    }

    /// Writes `json` rewritten (``text(_:id:storedVariants:)``) at the end of `body`; false,
    /// and nothing written, when it is not a JSON object. A list's photos go straight into its
    /// answer's buffer: each photo's text gathered, then the list's, then the buffer's, was
    /// three copies of every byte of a page.
    func write(_ json: Data, id: String, storedVariants: [StoredImage], to body: inout ByteBuffer) -> Bool {
        switch rewriting(json, id: id, storedVariants: storedVariants) {
        case .edits(let edits)?:
            JSONSpans.replacing(edits, in: json) { body.writeBytes($0) }
        case .whole(let text)?:
            body.writeBytes(text)
        case nil:
            return false
        }
        return true
    }

    /// How `json` is rewritten: the edits of its links, or the whole text again.
    private enum Rewriting {
        case edits([(span: Range<Data.Index>, text: Data)])
        case whole(Data)
    }

    /// How `json` is rewritten; nil when it is not a JSON object.
    ///
    /// When only links change, as they do unless `urls` point at stored images, the new links
    /// replace the old ones in the text Unsplash sent, and every other byte stays as it was:
    /// decoding and encoding each of a page's photos whole was most of what a list cost. The
    /// new location is written as bytes too: a `JSONDecoder`, a `JSONEncoder` and a
    /// `URLComponents` for each photo were a tenth of a page's CPU.
    private func rewriting(_ json: Data, id: String, storedVariants: [StoredImage]) -> Rewriting? {
        guard imageURLs == .unsplash || storedVariants.isEmpty,
            json.first(where: { !JSONSpans.isSpace($0) }) == UInt8(ascii: "{")
        else { return render(json, id: id, storedVariants: storedVariants).map { .whole($0.encoded) } }
        // The photo's members, read once: a page's photos are most of what a list costs.
        let members = JSONSpans.members(["user", "sponsorship", "links"], of: json)
        var edits = userEdits(inPhoto: json, user: members[0], sponsorship: members[1])
        // Without `links` (a collection's preview photos) there is nothing else to change.
        guard let links = members[2], json[links.lowerBound] == UInt8(ascii: "{") else { return .edits(edits) }
        let link = JSONSpans.members(["download_location", "self"], of: json[links])
        guard let location = link[0] else {
            // A photo without a location gets one added: rare enough to take the long way.
            return render(json, id: id, storedVariants: storedVariants).map { .whole($0.encoded) }
        }
        edits.append(
            (location, literal(onOrigin: downloadPath(id: id, query: Self.query(ofStringLiteral: json[location])))))
        if let link = link[1], json[link.lowerBound] == UInt8(ascii: "\"") {
            edits.append((link, literal(onOrigin: photoPath(id: id))))
        }
        return .edits(edits)
    }

    /// The JSON string literal of the mirror's URL with `path`, which must be ASCII that JSON
    /// takes as it is (the mirror's paths percent-encode ids and queries).
    private func literal(onOrigin path: String) -> Data {
        Self.quoted(originInJSON, path.utf8)
    }

    /// The JSON string literal whose inside is `head` then `tail`. Gathered in an array:
    /// `Data`'s appends of a collection were a tenth of a list's CPU.
    static func quoted(_ head: [UInt8], _ tail: some Collection<UInt8>) -> Data {
        var literal: [UInt8] = []
        literal.reserveCapacity(head.count + tail.count + 2)
        literal.append(UInt8(ascii: "\""))
        literal += head
        literal += tail
        literal.append(UInt8(ascii: "\""))
        return Data(literal)
    }

    /// `json` rewritten; nil when it is not a JSON object.
    func render(_ json: Data, id: String, storedVariants: [StoredImage]) -> JSONValue? {
        JSONValue.parse(json).flatMap { render($0, id: id, storedVariants: storedVariants) }
    }

    /// `photo` rewritten; nil when it is not an object.
    func render(_ photo: JSONValue, id: String, storedVariants: [StoredImage]) -> JSONValue? {
        guard case .object = photo else { return nil }
        var photo = photo
        if var links = photo["links"], case .object = links {
            links["download_location"] = .string(downloadLocation(id: id, unsplash: links["download_location"]?.string))
            if links["self"]?.string != nil { links["self"] = .string(origin + photoPath(id: id)) }
            photo["links"] = links
        }
        if let user = photo["user"] { photo["user"] = self.user(user) }
        if var sponsorship = photo["sponsorship"], let sponsor = sponsorship["sponsor"] {
            sponsorship["sponsor"] = user(sponsor)
            photo["sponsorship"] = sponsorship
        }
        if imageURLs == .local, var urls = photo["urls"], case .object = urls {
            for image in storedVariants where urls[image.variant.rawValue] != nil {
                urls[image.variant.rawValue] = .string(imageURL(id: id, variant: image.variant))
            }
            photo["urls"] = urls
        }
        return photo
    }

    /// The mirror's `/unsplash/photos/ID/download`, with the query of Unsplash's location
    /// (its `ixid`) kept.
    func downloadLocation(id: String, unsplash: String?) -> String {
        origin + downloadPath(id: id, query: unsplash.flatMap { Self.query(of: $0.utf8) })
    }

    /// The mirror's path of photo `id`, its `links.self`.
    private func photoPath(id: String) -> String {
        "/unsplash/photos/" + Attribution.encoded(id)
    }

    private func downloadPath(id: String, query: String?) -> String {
        "/unsplash/photos/" + Attribution.encoded(id) + "/download" + (query.map { "?" + $0 } ?? "")
    }

    /// The query of the URL the JSON string literal `literal` holds; nil when it holds no
    /// query, or is not a string.
    static func query(ofStringLiteral literal: Data) -> String? {
        guard literal.count >= 2, literal.first == UInt8(ascii: "\""), literal.last == UInt8(ascii: "\"") else {
            return nil
        }
        // Read as bytes, not as `Data`: `Data` byte by byte was most of this function's time.
        return literal.withUnsafeBytes { bytes -> String? in
            let content = bytes.dropFirst().dropLast()
            guard content.contains(UInt8(ascii: "\\")) else { return query(of: content) }
            // An escape (`\/`, `\u0026`) is rare enough to take the long way.
            return JSONSpans.string(literal).flatMap { query(of: $0.utf8) }
        }
    }

    /// The query of the URL `url`: what follows its first `?`, up to a `#`, with each byte that
    /// RFC 3986 does not allow in a query percent-encoded, as `URLComponents` does when it
    /// encodes invalid characters. Nil when there is no `?`. What comes before the `?` is not
    /// looked at: the query is kept even where the rest is not a URL.
    static func query(of url: some Collection<UInt8>) -> String? {
        guard let mark = url.firstIndex(of: UInt8(ascii: "?")) else { return nil }
        let query = url[url.index(after: mark)...].prefix { $0 != UInt8(ascii: "#") }
        var encoded: [UInt8] = []
        encoded.reserveCapacity(query.count)
        var index = query.startIndex
        while index != query.endIndex {
            let byte = query[index]
            if byte == UInt8(ascii: "%") {
                let digits = query[query.index(after: index)...].prefix(2)
                if digits.count == 2, digits.allSatisfy(isHexDigit) {
                    encoded.append(byte)
                } else {
                    appendPercentEncoded(byte, to: &encoded)
                }
            } else if isAllowedInQuery(byte) {
                encoded.append(byte)
            } else {
                appendPercentEncoded(byte, to: &encoded)
            }
            index = query.index(after: index)
        }
        return String(decoding: encoded, as: UTF8.self)
    }

    /// RFC 3986's unreserved characters, sub-delimiters, `:`, `@`, `/` and `?`.
    private static func isAllowedInQuery(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            allowedPunctuation.contains(byte)
        }
    }

    private static let allowedPunctuation = Set("-._~!$&'()*+,;=:@/?".utf8)
    private static let upperHex = Array("0123456789ABCDEF".utf8)

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "F"),
            UInt8(ascii: "a")...UInt8(ascii: "f"):
            true
        default: false
        }
    }

    private static func appendPercentEncoded(_ byte: UInt8, to text: inout [UInt8]) {
        text += [UInt8(ascii: "%"), upperHex[Int(byte >> 4)], upperHex[Int(byte & 0x0F)]]
    }

    /// `text` as the inside of a JSON string literal: as it is unless it holds a quote, a
    /// backslash or a control character.
    static func escapedForJSON(_ text: String) -> [UInt8] {
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
            return Array(text.utf8)
        }
        return Array(JSONValue.string(text).encoded.dropFirst().dropLast())
    }

    /// The gallery's image route for a stored variant.
    func imageURL(id: String, variant: ImageVariant) -> String {
        origin + GalleryLinks.image(id, variant: variant)
    }
}

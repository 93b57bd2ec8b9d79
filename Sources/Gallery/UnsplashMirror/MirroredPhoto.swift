import Foundation
import PhotoStore
import UnsplashAPI

/// A stored photo as the mirror sends it: the JSON Unsplash sent, with
/// `links.download_location` on the mirror, and with `urls` on the mirror's stored images when
/// ``MirrorConfiguration/ImageURLs/local`` says so. The photographer (`user`) and the photo's
/// page (`links.html`) stay Unsplash's: attribution is never rewritten.
struct MirroredPhoto {
    /// The mirror's origin, `http://HOST:PORT`, as the client reached it.
    let origin: String
    let imageURLs: MirrorConfiguration.ImageURLs

    /// `json` rewritten, as the text to send; nil when it is not a JSON object.
    ///
    /// When only `links.download_location` changes, as it does unless `urls` point at stored
    /// images, the new location replaces the old one in the text Unsplash sent, and every other
    /// byte stays as it was: decoding and encoding each of a page's photos whole was most of
    /// what a list cost.
    func text(_ json: Data, id: String, storedVariants: [StoredImage]) -> Data? {
        guard imageURLs == .unsplash || storedVariants.isEmpty,
            json.first(where: { !Self.isSpace($0) }) == UInt8(ascii: "{"),
            let links = JSONSpans.member("links", of: json)
        else { return render(json, id: id, storedVariants: storedVariants)?.encoded }
        guard json[links.lowerBound] == UInt8(ascii: "{") else { return json }
        guard let location = JSONSpans.member("download_location", of: json[links]) else {
            // A photo without a location gets one added: rare enough to take the long way.
            return render(json, id: id, storedVariants: storedVariants)?.encoded
        }
        let unsplash = JSONValue.parse(json[location])?.string
        var text = Data(capacity: json.count + 64)
        text.append(json[..<location.lowerBound])
        text.append(JSONValue.string(downloadLocation(id: id, unsplash: unsplash)).encoded)
        text.append(json[location.upperBound...])
        return text
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// `json` rewritten; nil when it is not a JSON object.
    func render(_ json: Data, id: String, storedVariants: [StoredImage]) -> JSONValue? {
        guard var photo = JSONValue.parse(json), case .object = photo else { return nil }
        if var links = photo["links"], case .object = links {
            links["download_location"] = .string(downloadLocation(id: id, unsplash: links["download_location"]?.string))
            photo["links"] = links
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
        let query = unsplash.flatMap { URLComponents(string: $0)?.percentEncodedQuery }.map { "?" + $0 } ?? ""
        return origin + "/unsplash/photos/" + Attribution.encoded(id) + "/download" + query
    }

    /// The gallery's image route for a stored variant.
    func imageURL(id: String, variant: ImageVariant) -> String {
        origin + GalleryLinks.image(id, variant: variant)
    }
}

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

    /// `json` rewritten; nil when it is not a JSON object.
    func render(_ json: Data, id: String, storedVariants: [StoredImage]) -> JSONValue? {
        guard var photo = JSONValue.parse(json), case .object = photo else { return nil }
        if var links = photo["links"], case .object = links {
            links["download_location"] = .string(downloadLocation(id: id, unsplash: links["download_location"]?.string))
            photo["links"] = links
        }
        if imageURLs == .local, var urls = photo["urls"], case .object = urls {
            for image in storedVariants where urls[image.variant] != nil {
                urls[image.variant] = .string(imageURL(id: id, variant: image.variant))
            }
            photo["urls"] = urls
        }
        return photo
    }

    /// The mirror's `/unsplash/photos/ID/download`, with the query of Unsplash's location
    /// (its `ixid`) kept.
    func downloadLocation(id: String, unsplash: String?) -> String {
        let query = unsplash.flatMap { URLComponents(string: $0)?.percentEncodedQuery }.map { "?" + $0 } ?? ""
        return origin + "/unsplash/photos/" + Attribution.pathSegment(id) + "/download" + query
    }

    /// The gallery's image route for a stored variant.
    func imageURL(id: String, variant: String) -> String {
        origin + GalleryLinks.image(id, variant: variant)
    }
}

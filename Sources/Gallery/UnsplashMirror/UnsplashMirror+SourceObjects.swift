import Foundation
import PhotoStore
import UnsplashAPI

/// The objects the sync stored for its sources (`GET /collections/:id`, `/topics/:slug`,
/// `/users/:username` as Unsplash answered them), served back with their API links on the
/// mirror.
extension UnsplashMirror {
    /// The stored object of the first of `sources` that has one (the last one the sync fetched),
    /// rewritten for `request`; nil when none has one (a source synced before objects were, or
    /// one whose object the API would not give): the caller answers 404 then, or (for a user)
    /// the `user` object Unsplash sent with a photo, and never makes one up.
    ///
    /// Its API links (every member of `links` under its own `links.self`: `self`, `photos`,
    /// `related`, `likes`, `portfolio`...) move to the mirror's `/unsplash` + `path`, whatever
    /// API the sync read it from. `links.html` and every user object (the owner, `owners`,
    /// `top_contributors`) stay as they are: attribution is Unsplash's. `cover_photo` and
    /// `preview_photos` are rendered as listed photos are (``MirroredPhoto``).
    func storedObject(of sources: [PhotoSource], path: String, _ request: MirrorRequest) async throws -> Data? {
        guard let json = try await store.catalog.sourceObject(ofAny: sources),
            var object = JSONValue.parse(json), case .object = object
        else { return nil }
        object["links"] = Self.links(object["links"], on: request.photo.origin + "/unsplash" + path)
        let cover = Self.photoID(object["cover_photo"])
        let previews: [JSONValue] =
            if case .array(let photos)? = object["preview_photos"] { photos } else { [] }
        let ids = ([cover] + previews.map(Self.photoID)).compactMap { $0 }
        let images = try await storedImages(ids)
        if let cover, let photo = object["cover_photo"] {
            let variants = images[cover] ?? []
            object["cover_photo"] = request.photo.render(photo, id: cover, storedVariants: variants) ?? photo
        }
        if !previews.isEmpty {
            object["preview_photos"] = .array(
                previews.map { photo in
                    Self.photoID(photo).flatMap {
                        request.photo.render(photo, id: $0, storedVariants: images[$0] ?? [])
                    } ?? photo
                })
        }
        return object.encoded
    }

    /// `links` with each API link under its `self` moved to `mirrorSelf`; `html` is kept.
    static func links(_ links: JSONValue?, on mirrorSelf: String) -> JSONValue? {
        guard var links, case .object(let members) = links, let stored = links["self"]?.string else { return links }
        for (name, value) in members where name != "html" {
            guard let url = value.string, url == stored || url.hasPrefix(stored + "/") else { continue }
            links[name] = .string(mirrorSelf + url.dropFirst(stored.count))
        }
        return links
    }

    private static func photoID(_ photo: JSONValue?) -> String? {
        photo?["id"]?.string
    }
}

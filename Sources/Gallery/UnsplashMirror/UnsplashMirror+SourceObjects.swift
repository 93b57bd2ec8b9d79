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
    /// API the sync read it from, and so do those of every user object it holds (the owner,
    /// `owners`, `top_contributors`: see `MirroredPhoto+Links.swift`). `links.html` and the rest
    /// of each user stay as they are: attribution is Unsplash's. `cover_photo` and
    /// `preview_photos` are rendered as listed photos are (``MirroredPhoto``).
    ///
    /// Those members are rewritten where they lie in the text Unsplash sent, which the
    /// sync took only once it parsed as an object; every other byte stays as it was, members
    /// in Unsplash's order. Parsing and encoding the whole object was most of what it cost.
    func storedObject(of sources: [PhotoSource], path: String, _ request: MirrorRequest) async throws -> Data? {
        guard let json = try await store.catalog.sourceObject(ofAny: sources),
            json.first(where: { !JSONSpans.isSpace($0) }) == UInt8(ascii: "{")
        else { return nil }
        var edits: [(span: Range<Data.Index>, text: Data)] = []
        if let span = JSONSpans.member("links", of: json) {
            edits += request.photo.linkEdits(in: json, at: span, onPath: "/unsplash" + path)
        }
        // Each embedded photo's span, with its id.
        var photos: [(span: Range<Data.Index>, id: String)] = []
        if let span = JSONSpans.member("cover_photo", of: json), let id = Self.photoID(json[span]) {
            photos.append((span, id))
        }
        if let span = JSONSpans.member("preview_photos", of: json) {
            for element in JSONSpans.arrayElements(of: json[span]) {
                if let id = Self.photoID(json[element]) { photos.append((element, id)) }
            }
        }
        // The users it names: a collection's owner, a topic's owners and top contributors.
        if let span = JSONSpans.member("user", of: json) { edits += request.photo.userEdits(in: json, at: span) }
        for name in ["owners", "top_contributors"] {
            if let span = JSONSpans.member(name, of: json) {
                edits += request.photo.userEdits(inArrayAt: span, of: json)
            }
        }
        let images = try await storedImages(photos.map(\.id))
        for photo in photos {
            let variants = images[photo.id] ?? []
            if let text = request.photo.text(json[photo.span], id: photo.id, storedVariants: variants) {
                edits.append((photo.span, text))
            }
        }
        return JSONSpans.replacing(edits, in: json)
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

    /// The `id` of the photo object `json` holds, when it is a string.
    private static func photoID(_ json: Data) -> String? {
        JSONSpans.member("id", of: json).flatMap { JSONSpans.string(json[$0]) }
    }
}

import Foundation
import PhotoStore

/// What a path segment of a mirror route names, read as Unsplash reads it.
enum MirrorPathSegment {
    /// The length of an Unsplash photo id.
    static let photoIDLength = 11

    /// The id at the end of a photo's slug: since 2023 Unsplash's `links.self` is
    /// `/photos/a-bunch-of-raspberries-...-jZU3x1Rwlqw`, and its API takes that for the id. Ids
    /// are 11 characters of `[A-Za-z0-9_-]` and may hold hyphens themselves, so the id is the
    /// last 11 characters when a hyphen comes before them; nil for a segment of no such shape.
    static func photoIDInSlug(_ segment: String) -> String? {
        let scalars = Array(segment.unicodeScalars)
        guard scalars.count > photoIDLength + 1, scalars[scalars.count - photoIDLength - 1] == "-" else { return nil }
        let id = scalars.suffix(photoIDLength)
        guard id.allSatisfy(isIDCharacter) else { return nil }
        return String(String.UnicodeScalarView(id))
    }

    private static func isIDCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII
            && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "-"
                || scalar == "_")
    }
}

extension UnsplashMirror {
    /// The photo a `/photos/:id` segment names: the id at the end of its slug when a stored
    /// photo has that id, else the segment as it is (an id, or an unknown photo that then
    /// answers 404).
    func photoID(_ segment: String) async throws -> String {
        guard let id = MirrorPathSegment.photoIDInSlug(segment), try await store.catalog.hasPhoto(id: id) else {
            return segment
        }
        return id
    }

    /// The topic source a `/topics/:id_or_slug` segment names, as Unsplash takes a topic's id or
    /// its slug: the topic of that segment when the sync lists it by that name, else the topic
    /// whose stored object has the segment as its id or slug. A topic the mirror does not hold
    /// gives the topic of the segment, which answers 404.
    func topicSource(_ segment: String) async throws -> PhotoSource {
        let named = PhotoSource.topic(segment)
        if try await store.catalog.hasSource(named) { return named }
        return try await store.catalog.topic(objectIDOrSlug: segment) ?? named
    }
}

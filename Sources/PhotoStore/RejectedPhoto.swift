import Foundation

/// An element of a feed page that is not a usable photo: no `id`, an empty one, or a field of
/// the wrong type. It is kept with its JSON and the reason, so that nothing the API sent is lost
/// and one bad element does not block the good photos of its page.
public struct RejectedPhoto: Sendable, Equatable {
    /// The element's `id` when it has a usable one as text, for finding it again.
    public var photoID: String?
    /// The element as the API sent it (re-encoded); any JSON value, not only an object.
    public var json: Data
    /// Why it was rejected, e.g. `"id" is missing`.
    public var reason: String

    public init(photoID: String?, json: Data, reason: String) {
        self.photoID = photoID
        self.json = json
        self.reason = reason
    }
}

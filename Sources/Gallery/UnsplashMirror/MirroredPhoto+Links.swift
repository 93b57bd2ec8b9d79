import Foundation
import UnsplashAPI

/// The API links inside stored objects, moved to the mirror.
///
/// What the sync stored names the API it read: `https://api.unsplash.com/users/ann`, or with the
/// stub, a loopback port that is gone once the sync stops. Those links need the sync's key, or
/// its host, so a client of the mirror follows them to the mirror instead: a photo's
/// `links.self`, and in every user object (a photo's photographer, an advertisement's sponsor, a
/// collection's owner, a topic's owners and contributors) the links under the user's own
/// `links.self` (`photos`, `likes`, `portfolio`...). The pages on unsplash.com (`links.html`,
/// `links.download`) and everything else of a user (name, username, profile images) stay as
/// Unsplash sent them: attribution is Unsplash's.
extension MirroredPhoto {
    /// `/unsplash/users/USERNAME` on the mirror.
    func userSelf(_ username: String) -> String {
        origin + "/unsplash/users/" + Attribution.encoded(username)
    }

    /// `user` with its API links on the mirror; as it is when it is not an object with a
    /// username.
    func user(_ user: JSONValue) -> JSONValue {
        guard case .object = user, let username = user["username"]?.string, user["links"] != nil else { return user }
        var user = user
        user["links"] = UnsplashMirror.links(user["links"], on: userSelf(username))
        return user
    }

    /// The edit of the user object at `span` of `json` that moves its API links: its `links`
    /// member rewritten, every other byte as it was. Nil when there is nothing to move.
    func userEdit(in json: Data, at span: Range<Data.Index>) -> (span: Range<Data.Index>, text: Data)? {
        let user = json[span]
        guard user.first == UInt8(ascii: "{"), let links = JSONSpans.member("links", of: user),
            let username = JSONSpans.member("username", of: user).flatMap({ JSONSpans.string(json[$0]) }),
            let stored = JSONValue.parse(json[links]),
            let moved = UnsplashMirror.links(stored, on: userSelf(username)), moved != stored
        else { return nil }
        return (links, moved.encoded)
    }

    /// The edits of each user object among the elements of the array at `span` (`owners`).
    func userEdits(inArrayAt span: Range<Data.Index>, of json: Data) -> [(span: Range<Data.Index>, text: Data)] {
        guard json[span].first == UInt8(ascii: "[") else { return [] }
        return JSONSpans.arrayElements(of: json[span]).compactMap { userEdit(in: json, at: $0) }
    }

    /// The edits of the users a photo holds: its photographer, and an advertisement's sponsor.
    func userEdits(inPhoto json: Data) -> [(span: Range<Data.Index>, text: Data)] {
        var edits: [(span: Range<Data.Index>, text: Data)] = []
        if let user = JSONSpans.member("user", of: json), let edit = userEdit(in: json, at: user) {
            edits.append(edit)
        }
        if let sponsorship = JSONSpans.member("sponsorship", of: json),
            json[sponsorship].first == UInt8(ascii: "{"),
            let sponsor = JSONSpans.member("sponsor", of: json[sponsorship]),
            let edit = userEdit(in: json, at: sponsor)
        {
            edits.append(edit)
        }
        return edits
    }
}

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

    /// The edits of the user object at `span` of `json` that move its API links
    /// (``linkEdits(in:at:onPath:)``); none when there is nothing to move.
    func userEdits(in json: Data, at span: Range<Data.Index>) -> [(span: Range<Data.Index>, text: Data)] {
        let user = json[span]
        guard user.first == UInt8(ascii: "{") else { return [] }
        let members = JSONSpans.members(["links", "username"], of: user)
        guard let links = members[0], let username = members[1].flatMap({ JSONSpans.string(json[$0]) }) else {
            return []
        }
        return linkEdits(in: json, at: links, onPath: "/unsplash/users/" + Attribution.encoded(username))
    }

    /// The edits that move the links of the `links` object at `span` of `json` to the mirror's
    /// `path`, as ``UnsplashMirror/links(_:on:)`` moves them (each member but `html` that is
    /// `links.self` or under it), each link rewritten where it lies: every other byte stays as
    /// it was, the members in Unsplash's order. Decoding and encoding each photographer's links
    /// made a page of the Unsplash API's lists three times as costly, and reading them a byte at
    /// a time through `Data` half again: they are read from the buffer. A links object with an
    /// escape, which Unsplash does not send, is decoded and encoded whole.
    func linkEdits(
        in json: Data, at span: Range<Data.Index>, onPath path: String
    ) -> [(span: Range<Data.Index>, text: Data)] {
        let members = JSONSpans.members(of: json[span])
        let edits = json.withUnsafeBytes { raw -> [(span: Range<Data.Index>, text: Data)]? in
            let bytes = raw.bindMemory(to: UInt8.self)
            // Without escapes, a string's bytes between its quotes are its UTF-8.
            func text(_ range: Range<Data.Index>) -> Slice<UnsafeBufferPointer<UInt8>>? {
                let literal = bytes[(range.lowerBound - json.startIndex)..<(range.upperBound - json.startIndex)]
                guard literal.count >= 2, literal.first == UInt8(ascii: "\""), literal.last == UInt8(ascii: "\"")
                else { return nil }
                return literal.dropFirst().dropLast()
            }
            func escaped(_ range: Range<Data.Index>) -> Bool { text(range)?.contains(UInt8(ascii: "\\")) ?? false }
            guard !members.contains(where: { escaped($0.name) || escaped($0.value) }) else { return nil }
            guard let selfLink = members.first(where: { text($0.name)?.elementsEqual("self".utf8) == true }),
                let stored = text(selfLink.value)
            else { return [] }
            let mirrorSelf = originInJSON + Self.escapedForJSON(path)
            return members.compactMap { member in
                guard text(member.name)?.elementsEqual("html".utf8) != true, let url = text(member.value),
                    url.starts(with: stored)
                else { return nil }
                let rest = url.dropFirst(stored.count)
                guard rest.isEmpty || rest.first == UInt8(ascii: "/") else { return nil }
                return (member.value, Self.quoted(mirrorSelf, rest))
            }
        }
        if let edits { return edits }
        guard let stored = JSONValue.parse(json[span]), let moved = UnsplashMirror.links(stored, on: origin + path),
            moved != stored
        else { return [] }
        return [(span, moved.encoded)]
    }

    /// The edits of each user object among the elements of the array at `span` (`owners`).
    func userEdits(inArrayAt span: Range<Data.Index>, of json: Data) -> [(span: Range<Data.Index>, text: Data)] {
        guard json[span].first == UInt8(ascii: "[") else { return [] }
        return JSONSpans.arrayElements(of: json[span]).flatMap { userEdits(in: json, at: $0) }
    }

    /// The edits of the users a photo holds: its photographer (`user`), and an advertisement's
    /// sponsor (in `sponsorship`), given as the spans of the photo's members.
    func userEdits(
        inPhoto json: Data, user: Range<Data.Index>?, sponsorship: Range<Data.Index>?
    ) -> [(span: Range<Data.Index>, text: Data)] {
        var edits: [(span: Range<Data.Index>, text: Data)] = []
        if let user { edits += userEdits(in: json, at: user) }
        if let sponsorship, json[sponsorship].first == UInt8(ascii: "{"),
            let sponsor = JSONSpans.member("sponsor", of: json[sponsorship])
        {
            edits += userEdits(in: json, at: sponsor)
        }
        return edits
    }
}

import Foundation
import Hummingbird
import PhotoStore
import UnsplashAPI

/// `GET /collections` and `GET /topics`: the collections and topics the mirror holds, listed as
/// Unsplash lists its own (an array of the objects `/collections/:id` and `/topics/:slug`
/// answer, a page at a time, with `X-Total`, `X-Per-Page` and `Link`).
///
/// They are the objects the sync stored for its `collection:` and `topic:` sources. A source
/// whose object was never fetched is not listed, as `/collections/:id` answers 404 for it: the
/// mirror makes up no object. A topic that two sources name (by its slug and by its id) is
/// listed once.
extension UnsplashMirror {
    func collections(_ request: MirrorRequest) async throws -> Response {
        let page = try MirrorPage(request.parameters)
        let listed = try await storedObjects(request) { source in
            guard case .collection(let id) = source else { return nil }
            return "/collections/" + Attribution.encoded(id)
        }
        // Newest first, as Unsplash's list of all collections.
        let ordered = listed.sorted { ($0.published, $0.id) > ($1.published, $1.id) }
        return answer(ordered, page, request)
    }

    /// `ids` (ids or slugs, comma-separated) narrows the list; `order_by` is `latest`, `oldest`,
    /// `featured` or `position` (Unsplash's default, its editors' order, which the API does not
    /// send: the mirror lists featured topics first, then the newest, as for `featured`).
    func topics(_ request: MirrorRequest) async throws -> Response {
        let parameters = request.parameters
        let page = try MirrorPage(parameters)
        let order = try parameters.choice("order_by", in: ["featured", "latest", "oldest", "position"]) ?? "position"
        let wanted = Set(Self.list(parameters["ids"]))
        let listed = try await storedObjects(request) { source in
            guard case .topic(let slug) = source else { return nil }
            return "/topics/" + Attribution.encoded(slug)
        }.filter { wanted.isEmpty || wanted.contains($0.id) || $0.slug.map(wanted.contains) == true }
        let ordered: [ListedObject] =
            switch order {
            case "latest": listed.sorted { ($0.published, $0.id) > ($1.published, $1.id) }
            case "oldest": listed.sorted { ($0.published, $0.id) < ($1.published, $1.id) }
            default:
                listed.sorted {
                    ($0.featured ? 1 : 0, $0.published, $0.id) > ($1.featured ? 1 : 0, $1.published, $1.id)
                }
            }
        return answer(ordered, page, request)
    }

    /// A stored object as a list orders it.
    struct ListedObject {
        let body: Data
        let id: String
        let slug: String?
        /// `published_at`, which Unsplash writes with an offset (`-05:00` in 2017, `Z` now); the
        /// distant past without one.
        let published: Date
        let featured: Bool
    }

    /// The stored objects of the sources `path` gives a path for (the object's own route, to
    /// which its API links move), each once.
    private func storedObjects(
        _ request: MirrorRequest, path: (PhotoSource) -> String?
    ) async throws -> [ListedObject] {
        var listed: [ListedObject] = []
        var seen = Set<String>()
        for name in try await store.catalog.sourceNames() {
            // A name this build cannot parse (another version's) has no route here either.
            guard let source = try? PhotoSource(parsing: name), let path = path(source),
                let body = try await storedObject(of: [source], path: path, request)
            else { continue }
            let id = Self.member("id", of: body) ?? name
            guard seen.insert(id).inserted else { continue }
            listed.append(
                ListedObject(
                    body: body, id: id, slug: Self.member("slug", of: body),
                    published: Self.member("published_at", of: body).flatMap { try? Date($0, strategy: .iso8601) }
                        ?? .distantPast,
                    featured: JSONSpans.member("featured", of: body).map { body[$0] == Data("true".utf8) } ?? false))
        }
        return listed
    }

    /// A string member of an object, or a whole number written as text (a 2019 collection's id).
    private static func member(_ name: String, of object: Data) -> String? {
        guard let span = JSONSpans.member(name, of: object) else { return nil }
        return JSONSpans.string(object[span])
            ?? String(data: object[span], encoding: .utf8).flatMap { Int($0) }.map(String.init)
    }

    private func answer(_ objects: [ListedObject], _ page: MirrorPage, _ request: MirrorRequest) -> Response {
        let shown = objects.dropFirst(page.offset).prefix(page.size).map(\.body)
        return MirrorAnswer.json(
            .ok, MirrorAnswer.array(Array(shown)), headers: listHeaders(page, total: objects.count, request))
    }
}

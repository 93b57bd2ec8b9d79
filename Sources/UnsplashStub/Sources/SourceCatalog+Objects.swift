import Foundation

/// The objects the stub's lists belong to, as Unsplash describes them: `GET /users/:username`
/// (the public profile), `GET /collections/:id` and `GET /topics/:slug`, in the shapes (keys,
/// order, nulls) of the recordings `collection.json` and `topic.json`.
extension SourceCatalog {
    /// The stub's collection titles, by id; a test reads them through ``UnsplashStub/sourceObject(_:)``.
    static let collectionTitles = ["3773378": "Neon Signage", "1001": "Quiet Mornings"]
    static let topicTitles = ["wallpapers": "Wallpapers", "nature": "Nature"]

    /// The object a request path names (`collections/1001`), or the message of Unsplash's 404.
    func object(path segments: [String]) -> Result<JSONValue, Missing> {
        guard segments.count == 2 else { return .failure(Missing(message: "Not found")) }
        switch segments[0] {
        case "users":
            guard let user = renderer.photographers.first(where: { $0.username == segments[1] }) else {
                return .failure(Missing(message: "Couldn't find User"))
            }
            return .success(renderer.userObject(user))
        case "collections": return collection(segments[1])
        case "topics": return topic(segments[1])
        default: return .failure(Missing(message: "Not found"))
        }
    }

    private func collection(_ id: String) -> Result<JSONValue, Missing> {
        guard let title = Self.collectionTitles[id], case .success(let photos) = photos(ofSource: "collection", id)
        else { return .failure(Missing(message: "Couldn't find Collection")) }
        var generator = Determinism.generator("collection:\(seed):\(id)")
        let owner = generator.pick(renderer.photographers)
        let api = renderer.baseURL.absoluteString + "/collections/" + id
        let published = Timestamps.seconds(year: 2019, month: 1, day: 7) + generator.int(in: 0...2_000_000)
        let updated = photos.first.map(\.createdAt) ?? published
        let words = SourceCatalog.words(title)
        return .success(
            .object([
                ("id", .string(id)),
                ("title", .string(title)),
                ("description", .null),
                ("published_at", .string(Timestamps.iso8601(published))),
                ("last_collected_at", .string(Timestamps.iso8601(updated))),
                ("updated_at", .string(Timestamps.iso8601(updated))),
                ("featured", false),
                ("total_photos", .int(photos.count)),
                ("private", false),
                ("share_key", .string(Determinism.identifier("share:\(seed):\(id)"))),
                ("tags", .array(words.map { .object([("type", "search"), ("title", .string($0))]) })),
                (
                    "links",
                    [
                        "self": .string(api),
                        "html": .string("https://unsplash.com/collections/\(id)/" + words.joined(separator: "-")),
                        "photos": .string(api + "/photos"),
                        "related": .string(api + "/related"),
                    ]
                ),
                ("user", renderer.userObject(owner)),
                ("cover_photo", photos.first.map(renderer.summary) ?? .null),
                ("preview_photos", .array(photos.prefix(4).map(preview))),
                ("meta", ["title": nil, "description": nil, "index": false]),
            ]))
    }

    private func topic(_ slug: String) -> Result<JSONValue, Missing> {
        guard let title = Self.topicTitles[slug], case .success(let photos) = photos(ofSource: "topic", slug) else {
            return .failure(Missing(message: "Couldn't find Topic"))
        }
        var generator = Determinism.generator("topic:\(seed):\(slug)")
        let owner = generator.pick(renderer.photographers)
        let api = renderer.baseURL.absoluteString + "/topics/" + slug
        let published = Timestamps.seconds(year: 2020, month: 4, day: 17) + generator.int(in: 0...2_000_000)
        return .success(
            .object([
                ("id", .string(Determinism.identifier("topic:\(seed):\(slug)"))),
                ("slug", .string(slug)),
                ("title", .string(title)),
                ("description", .string("The best of \(title.lowercased()), picked by the stub.")),
                ("published_at", .string(Timestamps.iso8601(published))),
                ("updated_at", .string(Timestamps.iso8601(photos.first.map(\.createdAt) ?? published))),
                ("starts_at", .string(Timestamps.iso8601(published))),
                ("ends_at", .null),
                ("only_submissions_after", .null),
                ("visibility", "featured"),
                ("featured", true),
                ("total_photos", .int(photos.count)),
                ("current_user_contributions", []),
                ("total_current_user_submissions", .null),
                (
                    "links",
                    [
                        "self": .string(api),
                        "html": .string("https://unsplash.com/t/" + slug),
                        "photos": .string(api + "/photos"),
                    ]
                ),
                ("media_types", ["photo"]),
                ("status", "open"),
                ("owners", .array([renderer.userObject(owner)])),
                ("top_contributors", .array(renderer.photographers.prefix(3).map(renderer.userObject))),
                ("cover_photo", photos.first.map(renderer.summary) ?? .null),
                ("preview_photos", .array(photos.prefix(4).map(preview))),
            ]))
    }

    /// A preview photo: the few members the recordings' `preview_photos` have.
    private func preview(_ photo: StubPhoto) -> JSONValue {
        guard case .object(let members) = renderer.summary(photo) else { return .null }
        let kept = ["id", "slug", "created_at", "updated_at", "blur_hash", "asset_type", "urls"]
        return .object(kept.compactMap { key in members.first { $0.0 == key } })
    }
}

import Foundation

/// The photo lists the stub serves besides the feed, all drawn from the same photos so that
/// they overlap as Unsplash's do: a photographer's photos, each photographer's likes, a few
/// collections and topics, and search over the words of descriptions. Likes, topics and
/// search also hold the Unsplash+ photos, as Unsplash's do.
///
/// Every list is newest first (`order_by=latest`), and membership is a pure function of the
/// seed and the photo, so a test can ask the stub what a list holds (``UnsplashStub/photoIDs(ofSource:)``).
struct SourceCatalog: Sendable {
    /// Collection ids are strings of digits on Unsplash; these are the stub's.
    static let collectionIDs = ["3773378", "1001"]
    static let topicSlugs = ["wallpapers", "nature"]

    let feed: PhotoFeed
    let renderer: PhotoRenderer
    let seed: UInt64

    /// The photos of the list named by a request path (`users/ann/photos`), newest first, or
    /// the message of the 404 Unsplash answers for an unknown user, collection or topic.
    func photos(path segments: [String], query: [(name: String, value: String)]) -> Result<[StubPhoto], Missing> {
        switch (segments.count, segments.first) {
        case (3, "users") where segments[2] == "photos":
            return photos(ofSource: "user", segments[1])
        case (3, "users") where segments[2] == "likes":
            return photos(ofSource: "likes", segments[1])
        case (3, "collections") where segments[2] == "photos":
            return photos(ofSource: "collection", segments[1])
        case (3, "topics") where segments[2] == "photos":
            return photos(ofSource: "topic", segments[1])
        case (2, "search") where segments[1] == "photos":
            return photos(ofSource: "search", query.last { $0.name == "query" }?.value ?? "")
        default:
            return .failure(Missing(message: "Not found"))
        }
    }

    struct Missing: Error, Equatable {
        let message: String
    }

    func photos(ofSource kind: String, _ value: String) -> Result<[StubPhoto], Missing> {
        let everything = newestFirst(feed.photos + feed.premium)
        let organic = newestFirst(feed.photos)
        switch kind {
        case "user":
            guard isPhotographer(value) else { return .failure(Missing(message: "Couldn't find User")) }
            return .success(organic.filter { username(of: $0) == value })
        case "likes":
            guard isPhotographer(value) else { return .failure(Missing(message: "Couldn't find User")) }
            return .success(everything.filter { member("likes:\(value)", $0, oneIn: $0.kind == .premium ? 2 : 4) })
        case "collection":
            guard Self.collectionIDs.contains(value) else {
                return .failure(Missing(message: "Couldn't find Collection"))
            }
            return .success(organic.filter { member("collection:\(value)", $0, oneIn: 5) })
        case "topic":
            guard Self.topicSlugs.contains(value) else { return .failure(Missing(message: "Couldn't find Topic")) }
            return .success(everything.filter { $0.kind == .premium || member("topic:\(value)", $0, oneIn: 3) })
        case "search":
            let wanted = Self.words(value)
            guard !wanted.isEmpty else { return .success([]) }
            return .success(everything.filter { Set(Self.words(text(of: $0))).isSuperset(of: wanted) })
        default:
            return .failure(Missing(message: "Not found"))
        }
    }

    private func newestFirst(_ photos: [StubPhoto]) -> [StubPhoto] {
        photos.sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }
    }

    private func isPhotographer(_ username: String) -> Bool {
        renderer.photographers.contains { $0.username == username }
    }

    private func member(_ list: String, _ photo: StubPhoto, oneIn count: UInt64) -> Bool {
        var generator = Determinism.generator("member:\(seed):\(list):\(photo.id)")
        return generator.next() % count == 0
    }

    private func username(of photo: StubPhoto) -> String {
        renderer.facts(photo).user.username
    }

    private func text(of photo: StubPhoto) -> String {
        renderer.facts(photo).searchableText
    }

    static func words(_ text: String) -> [String] {
        text.lowercased().split { !($0.isLetter || $0.isNumber) }.map(String.init)
    }
}

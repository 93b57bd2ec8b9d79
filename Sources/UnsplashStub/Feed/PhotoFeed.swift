/// One photo the stub serves. Everything else about it (title, user, size, colour) is
/// recomputed from its id when rendered, so a feed of many thousands stays small.
struct StubPhoto: Sendable, Equatable {
    enum Kind: Sendable, Equatable {
        case feed
        /// An advertisement: injected into every page, never counted in `X-Total`.
        case sponsored
        /// An Unsplash+ photo: never in the feed, but in likes, topics and search; its image
        /// URLs are `premium_photo-...` ones a free key may not download.
        case premium
    }

    let id: String
    /// The `ixid` query value of its image and download URLs.
    let ixid: String
    let kind: Kind
    /// Seconds since 1970.
    let createdAt: Int
}

/// The feed of `GET /photos`: newest first, growing at the head.
struct PhotoFeed: Sendable {
    /// Oldest first, so that adding photos appends and positions count from the end.
    private(set) var photos: [StubPhoto] = []
    /// The advertisements pages rotate through.
    private(set) var sponsored: [StubPhoto] = []
    /// The Unsplash+ photos of likes, topics and search.
    private(set) var premium: [StubPhoto] = []
    private var byID: [String: StubPhoto] = [:]
    private let seed: UInt64

    /// Feed photos are spaced ten minutes apart from here on.
    private static let feedEpoch = Timestamps.seconds(year: 2024, month: 1, day: 1)
    /// Advertisements are older than the feed, as on Unsplash.
    private static let sponsoredEpoch = Timestamps.seconds(year: 2023, month: 4, day: 28)
    private static let sponsoredPoolSize = 4
    private static let premiumPoolSize = 4

    init(seed: UInt64, count: Int) {
        self.seed = seed
        for index in 0..<Self.sponsoredPoolSize {
            let id = uniqueID(for: "sponsored:\(index)")
            let photo = StubPhoto(
                id: id, ixid: ixid(for: id), kind: .sponsored,
                createdAt: Self.sponsoredEpoch + 43_200 + index * 997)
            sponsored.append(photo)
            byID[id] = photo
        }
        for index in 0..<Self.premiumPoolSize {
            let id = uniqueID(for: "premium:\(index)")
            // Spread over the feed's first days, so they sit among its photos in every list.
            let photo = StubPhoto(
                id: id, ixid: ixid(for: id), kind: .premium, createdAt: Self.feedEpoch + 300 + index * 6_007)
            premium.append(photo)
            byID[id] = photo
        }
        addPhotos(count: count)
    }

    /// The number of feed photos, as `X-Total` reports it.
    var count: Int { photos.count }

    func photo(id: String) -> StubPhoto? {
        byID[id]
    }

    /// The photo at `position` of the feed, 0 being the newest.
    func newest(at position: Int) -> StubPhoto {
        photos[photos.count - 1 - position]
    }

    /// Creates `count` photos newer than every photo so far, and returns them newest first.
    @discardableResult
    mutating func addPhotos(count: Int) -> [StubPhoto] {
        var added: [StubPhoto] = []
        for _ in 0..<max(0, count) {
            let sequence = photos.count
            let photo = Self.feedPhoto(sequence: sequence, id: uniqueID(for: "photo:\(sequence)"), seed: seed)
            photos.append(photo)
            byID[photo.id] = photo
            added.append(photo)
        }
        return added.reversed()
    }

    /// The photos of one page: feed photos with advertisements in the layout's slots.
    /// Past the last page, and for an empty feed, the page is empty.
    func page(_ page: Int, layout: PageLayout) -> [StubPhoto] {
        let start = (page - 1) * layout.feedPhotosPerPage
        guard page >= 1, start < photos.count else { return [] }
        let feedPhotos = (start..<min(start + layout.feedPhotosPerPage, photos.count)).map(newest(at:))

        var result: [StubPhoto] = []
        var remaining = feedPhotos[...]
        var advertisementsPlaced = 0
        for slot in 0..<layout.perPage where !remaining.isEmpty {
            if layout.sponsoredSlots.contains(slot) {
                let rotation = (page - 1) * layout.sponsoredSlots.count + advertisementsPlaced
                result.append(sponsored[rotation % sponsored.count])
                advertisementsPlaced += 1
            } else {
                result.append(remaining.removeFirst())
            }
        }
        return result
    }

    /// Feed photo `sequence` (0 the oldest) under `id`: its `ixid` and creation time follow.
    static func feedPhoto(sequence: Int, id: String, seed: UInt64) -> StubPhoto {
        var generator = Determinism.generator("created:\(seed):\(id)")
        return StubPhoto(
            id: id, ixid: ixid(for: id, seed: seed), kind: .feed,
            createdAt: feedEpoch + sequence * 600 + generator.int(in: 0...599))
    }

    /// The id feed photo `sequence` gets unless a photo made before it has it already
    /// (``uniqueID(for:)``), which for ids of 66 random bits is as good as never.
    static func firstChoiceID(sequence: Int, seed: UInt64) -> String {
        Determinism.identifier("photo:\(sequence):\(seed)")
    }

    /// The ids of the advertisements and Unsplash+ photos, made before any feed photo.
    var reservedIDs: Set<String> {
        Set((sponsored + premium).map(\.id))
    }

    private mutating func uniqueID(for name: String) -> String {
        var id = Determinism.identifier("\(name):\(seed)")
        var attempt = 1
        while byID[id] != nil {
            id = Determinism.identifier("\(name):\(seed):\(attempt)")
            attempt += 1
        }
        return id
    }

    private func ixid(for id: String) -> String {
        Self.ixid(for: id, seed: seed)
    }

    private static func ixid(for id: String, seed: UInt64) -> String {
        "M3w" + Determinism.token("ixid:\(seed):\(id)", length: 29)
    }
}

/// Where a page's advertisements go, and so how many feed photos a page holds.
struct PageLayout: Sendable, Equatable {
    let perPage: Int
    /// Positions within a page (0-based) that hold an advertisement.
    let sponsoredSlots: [Int]

    /// - Parameter sponsoredEvery: every this-many-th slot, from the first, is an advertisement;
    ///   nil for none. A page always keeps at least one slot for the feed, or paging would stall.
    init(perPage: Int, sponsoredEvery: Int?) {
        self.perPage = perPage
        if let every = sponsoredEvery, every >= 2, perPage >= 2 {
            sponsoredSlots = Array(stride(from: 0, to: perPage, by: every))
        } else {
            sponsoredSlots = []
        }
    }

    var feedPhotosPerPage: Int { perPage - sponsoredSlots.count }

    /// The number of pages that hold feed photos; 0 for an empty feed.
    func lastPage(total: Int) -> Int {
        (total + feedPhotosPerPage - 1) / feedPhotosPerPage
    }
}

/// What is wrong with one photo object of a page.
public enum PhotoDefect: Sendable, Equatable {
    /// The object has no `id` key.
    case missingID
    /// `"id": ""`.
    case emptyID
    /// The named top-level field holds a value of another type: a string or null becomes the
    /// number 42; a number, boolean, object or array becomes a string such as `"not a number"`.
    case wrongType(field: String)
}

/// A defect at one position of a page.
struct DamagedSlot: Sendable {
    let slot: Int
    let defect: PhotoDefect
    var repetition: FaultRepetition
}

/// New uploads that arrive while a client pages: after every `period`-th page request, `count`
/// photos are published at the head.
struct HeadArrivals: Sendable {
    let period: Int
    let count: Int
    private var pageRequests = 0

    init(period: Int, count: Int) {
        self.period = period
        self.count = count
    }

    /// Records one answered page; returns how many photos arrive now.
    mutating func pageAnswered() -> Int {
        pageRequests += 1
        return pageRequests % period == 0 ? count : 0
    }
}

extension UnsplashStub {
    /// Answers `GET /photos?page=N` with `200 []`, keeping every header the page would have had:
    /// `X-Total` and a `Link` with `rel="next"` while later pages exist. A feed that contradicts
    /// itself, as Unsplash's has been seen to.
    public func serveEmptyPage(_ page: Int, repeat repetition: FaultRepetition = .once) {
        faults.emptyPages[page] = repetition
    }

    /// Answers `GET /photos?page=N` with `200`, its usual headers and `Content-Type:
    /// application/json`, but a body that is the page's JSON cut off halfway: not parseable.
    public func serveMalformedJSON(onPage page: Int, repeat repetition: FaultRepetition = .once) {
        faults.malformedPages[page] = repetition
    }

    /// Damages the photo at `slot` (0-based, advertisements included) of every answer for
    /// `GET /photos?page=N`; the other photos of the page are served intact. Several slots of a
    /// page can be damaged; setting a slot again replaces its defect.
    public func damagePhoto(
        onPage page: Int, slot: Int = 0, _ defect: PhotoDefect, repeat repetition: FaultRepetition = .always
    ) {
        var slots = faults.damagedPhotos[page, default: []].filter { $0.slot != slot }
        slots.append(DamagedSlot(slot: slot, defect: defect, repetition: repetition))
        faults.damagedPhotos[page] = slots
    }

    /// After every `period`-th answered `GET /photos` page (any page, counted from now), publishes
    /// `count` new photos at the head, as `addPhotos(count:)` does: the feed moves under a client
    /// while it pages. The page that triggers it is answered first. `count` or `period` below 1
    /// stops the arrivals.
    public func addPhotosWhilePaging(count: Int, everyPageRequests period: Int) {
        faults.headArrivals = count > 0 && period > 0 ? HeadArrivals(period: period, count: count) : nil
    }
}

extension PhotoDefect {
    /// The photo object with this defect applied.
    func apply(to photo: JSONValue) -> JSONValue {
        guard case .object(var members) = photo else { return photo }
        switch self {
        case .missingID:
            members.removeAll { $0.0 == "id" }
        case .emptyID:
            members = members.map { $0.0 == "id" ? ("id", .string("")) : $0 }
        case .wrongType(let field):
            members = members.map { $0.0 == field ? (field, Self.retyped($0.1)) : $0 }
        }
        return .object(members)
    }

    private static func retyped(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string: .int(42)
        case .int, .double: .string("not a number")
        case .bool: .string("not a boolean")
        case .object: .string("not an object")
        case .array: .string("not an array")
        case .null: .int(42)
        }
    }
}

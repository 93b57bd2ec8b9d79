import Foundation
import Gallery
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import PhotoStore
import PhotoStoreSQLite
import Synchronization
import TestSupport

/// A JSON value read as-is, to compare shapes and to store recorded photos verbatim: a number
/// stays a number and `true` a boolean.
indirect enum JSONShape: Codable, Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONShape])
    case object([String: JSONShape])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONShape].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONShape].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            if value == value.rounded() && abs(value) < 1e15 {
                try container.encode(Int64(value))
            } else {
                try container.encode(value)
            }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    static func parse(_ data: Data) throws -> JSONShape { try JSONDecoder().decode(JSONShape.self, from: data) }

    subscript(name: String) -> JSONShape? {
        guard case .object(let members) = self else { return nil }
        return members[name]
    }

    var elements: [JSONShape] {
        guard case .array(let elements) = self else { return [] }
        return elements
    }

    var text: String? {
        guard case .string(let text) = self else { return nil }
        return text
    }

    var data: Data { (try? JSONEncoder().encode(self)) ?? Data() }

    private var kind: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// Objects whose keys are data, not fields: their members vary from photo to photo.
    static let keyedByData: Set<String> = ["topic_submissions", "alternative_slugs"]
    /// Keys Unsplash sends on some objects and not on others of the same kind (the recordings'
    /// README: nested `user.links` often lacks `following`/`followers`).
    static let sometimesAbsent: Set<String> = ["following", "followers"]

    /// Where `actual` differs in shape from `expected` (a recording): a key missing or extra, a
    /// value of another kind. `null` on either side matches any kind, as Unsplash itself sends
    /// `null` for many fields. Arrays of the same length are compared element by element;
    /// otherwise each element of `actual` against the recording's first.
    static func mismatches(expected: JSONShape, actual: JSONShape, at path: String = "$") -> [String] {
        switch (expected, actual) {
        case (.null, _), (_, .null):
            return []
        case (.object, .object) where keyedByData.contains(where: { path.hasSuffix("." + $0) }):
            return []
        case (.object(let wanted), .object(let got)):
            var found: [String] = []
            for key in Set(wanted.keys).subtracting(got.keys).subtracting(sometimesAbsent).sorted() {
                found.append("\(path).\(key) is missing")
            }
            for key in Set(got.keys).subtracting(wanted.keys).subtracting(sometimesAbsent).sorted() {
                found.append("\(path).\(key) is extra")
            }
            for (key, value) in wanted.sorted(by: { $0.key < $1.key }) {
                if let other = got[key] { found += mismatches(expected: value, actual: other, at: "\(path).\(key)") }
            }
            return found
        case (.array(let wanted), .array(let got)):
            guard let first = wanted.first else { return [] }
            return got.enumerated().flatMap { index, element in
                mismatches(
                    expected: wanted.count == got.count ? wanted[index] : first, actual: element,
                    at: "\(path)[\(index)]")
            }
        default:
            return expected.kind == actual.kind ? [] : ["\(path) is \(actual.kind), not \(expected.kind)"]
        }
    }
}

extension JSONShape {
    /// A user object as the mirror on `origin` answers it: the links under its own `links.self`
    /// (`self`, `photos`, `likes`...) on `/unsplash/users/USERNAME`, everything else, its page on
    /// unsplash.com included, as Unsplash sent it.
    func mirroredUser(on origin: String) -> JSONShape {
        guard case .object(var user) = self, case .object(var links)? = user["links"],
            let own = links["self"]?.text, let username = user["username"]?.text
        else { return self }
        for (name, value) in links where name != "html" {
            guard let url = value.text, url == own || url.hasPrefix(own + "/") else { continue }
            links[name] = .string(origin + "/unsplash/users/" + username + url.dropFirst(own.count))
        }
        user["links"] = .object(links)
        return .object(user)
    }

    /// Where `actual` holds another value than `expected` (a recording), field by field: a key
    /// missing or extra, a value that differs. Paths `rewritten` says the mirror changes (its
    /// own API links) are left out; each is a path such as `$.links.self` or `$[3].links.download_location`.
    static func differences(
        expected: JSONShape, actual: JSONShape, at path: String = "$", rewritten: (String) -> Bool = { _ in false }
    ) -> [String] {
        if rewritten(path) { return [] }
        switch (expected, actual) {
        case (.object(let wanted), .object(let got)):
            return Set(wanted.keys).union(got.keys).sorted().flatMap { key -> [String] in
                let at = "\(path).\(key)"
                if rewritten(at) { return [] }
                switch (wanted[key], got[key]) {
                case (nil, _): return ["\(at) is extra"]
                case (_, nil): return ["\(at) is missing"]
                case (let value?, let other?):
                    return differences(expected: value, actual: other, at: at, rewritten: rewritten)
                }
            }
        case (.array(let wanted), .array(let got)) where wanted.count == got.count:
            return zip(wanted, got).enumerated().flatMap { index, pair in
                differences(expected: pair.0, actual: pair.1, at: "\(path)[\(index)]", rewritten: rewritten)
            }
        default:
            return expected == actual ? [] : ["\(path) differs"]
        }
    }
}

/// `http://HOST:PORT` of a URL the mirror answered: its origin as the client reached it.
func mirrorOrigin(of url: String) -> String? {
    guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host
    else { return nil }
    return scheme + "://" + host + (components.port.map { ":\($0)" } ?? "")
}

/// Headers every list answer of Unsplash's carries, as the recordings show.
let listContractHeaders = [
    "Content-Type", "Link", "X-Total", "X-Per-Page", "X-Ratelimit-Limit", "X-Ratelimit-Remaining",
]

extension GalleryFixture {
    /// Stores `photos` as one page of `source`.
    func commit(_ photos: [PhotoRecord], source: String, at seconds: TimeInterval = 1_700_000_000) async throws {
        try await writer.ledger.commitPage(
            photos, variant: .regular, source: PhotoSource(parsing: source), now: Date(timeIntervalSince1970: seconds)
        ) { _ in .backfill(next: nil) }
    }

    /// Stores the photos of a recorded list (an array, or a search's `results`) as `source`, in
    /// the recording's order; returns them as recorded.
    @discardableResult
    func commit(recording fixture: Fixture, source: String) async throws -> [JSONShape] {
        let body = try JSONShape.parse(try fixture.data)
        let photos = body["results"]?.elements ?? body.elements
        try await commit(photos.map(Self.record), source: source)
        return photos
    }

    /// The recorded collection (`collection:3773378`, published 2019, with its recorded photos)
    /// and the 2019 recording's (`collection:201`, a numeric id, published 2017, with one photo),
    /// their objects stored as the sync stores them.
    func storeRecordedCollections() async throws {
        try await commit(recording: .collectionsPhotos, source: "collection:3773378")
        try await commit([Sample.photo("iceland", day: 1)], source: "collection:201")
        let fetched = Date(timeIntervalSince1970: 1_700_000_000)
        try await writer.ledger.storeSourceObject(
            try Fixture.collection.data, sources: ["collection:3773378"], at: fetched)
        try await writer.ledger.storeSourceObject(
            try Fixture.collection2019.data, sources: ["collection:201"], at: fetched)
    }

    /// A recorded photo as the sync stores it, its JSON verbatim.
    static func record(_ photo: JSONShape) -> PhotoRecord {
        func number(_ value: JSONShape?) -> Int? {
            guard case .number(let number)? = value else { return nil }
            return Int(number)
        }
        let created = photo["created_at"]?.text.flatMap { try? Date($0, strategy: .iso8601) }
        return PhotoRecord(
            id: photo["id"]?.text ?? "", createdAt: created, width: number(photo["width"]),
            height: number(photo["height"]), color: photo["color"]?.text, description: photo["description"]?.text,
            altDescription: photo["alt_description"]?.text, userUsername: photo["user"]?["username"]?.text,
            userName: photo["user"]?["name"]?.text, likes: number(photo["likes"]),
            downloadLocation: photo["links"]?["download_location"]?.text, json: photo.data)
    }

    /// Runs `body` with a client of the gallery, its Unsplash API set up by `mirror`, over real
    /// HTTP on a loopback port.
    func serve(mirror: MirrorConfiguration, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void)
        async throws
    {
        let gallery = Gallery(store: try PhotoStore.openExisting(path: path), mirror: mirror)
        var logger = Logger(label: "MirrorTests")
        logger.logLevel = .warning
        try await gallery.application(host: "127.0.0.1", port: 0, logger: logger).test(.live) { client in
            try await body(client)
        }
    }
}

extension TestClientProtocol {
    /// GET `uri` with `Authorization: Client-ID key`.
    func get(_ uri: String, key: String? = "test-key") async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if let key { headers[.authorization] = "Client-ID \(key)" }
        return try await execute(uri: uri, method: .get, headers: headers)
    }
}

extension TestResponse {
    var json: JSONShape { (try? JSONShape.parse(Data(String(buffer: body).utf8))) ?? .null }

    func header(_ name: String) -> String? { headers[HTTPField.Name(name)!] }

    /// The `Link` header's targets by relation, each as path and query.
    var links: [String: String] {
        var links: [String: String] = [:]
        for part in (header("Link") ?? "").split(separator: ",") {
            let pieces = part.split(separator: ";")
            guard pieces.count == 2, let start = pieces[0].firstIndex(of: "<"), let end = pieces[0].firstIndex(of: ">")
            else { continue }
            let url = URLComponents(string: String(pieces[0][pieces[0].index(after: start)..<end]))
            let rel = pieces[1].replacingOccurrences(of: "rel=", with: "").trimmingCharacters(in: .whitespaces)
                .trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            links[rel] = (url?.path ?? "") + (url?.query.map { "?" + $0 } ?? "")
        }
        return links
    }
}

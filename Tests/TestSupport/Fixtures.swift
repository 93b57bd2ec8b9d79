import Foundation

/// The real Unsplash responses kept in Fixtures/ (copied from shared/fixtures/unsplash).
public enum Fixture: String, Sendable, CaseIterable {
    case page1 = "photos-2024-01-page1"
    case page2 = "photos-2024-01-page2"
    case photo2025 = "photo-2025-02"
    case usersPhotos = "users-photos"
    case usersLikes = "users-likes"
    case collectionsPhotos = "collections-photos"
    case topicsPhotos = "topics-photos"
    case searchPhotos = "search-photos"
    case searchPhotos2023 = "search-photos-2023"
    case user404 = "user-404"
    case collection404 = "collection-404"
    case photo = "photo"
    case photo404 = "photo-404"
    case photoRandom2023 = "photo-random-2023-with-location"
    case collection = "collection"
    case topic = "topic"
    case photosSponsored = "photos-list-sponsored"
    case unauthorized401 = "unauthorized-401-2023"
    /// `GET /collections/201` in 2019: its `id` is a number.
    case collection2019 = "collection-2019-numeric-id"

    /// `rate-limit-403.body.txt`: the plain-text body Unsplash sends past the rate limit.
    public static var rateLimit403Body: String {
        get throws {
            let url = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/rate-limit-403.body.txt")
            return String(decoding: try Data(contentsOf: url), as: UTF8.self)
        }
    }

    public var data: Data {
        get throws {
            let url = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/\(rawValue).json")
            return try Data(contentsOf: url)
        }
    }

    public var text: String {
        get throws { String(decoding: try data, as: UTF8.self) }
    }

    /// The response headers recorded with it (`NAME.headers.txt`, one `Name: value` a line);
    /// empty for recordings kept without them.
    public var headers: [String: String] {
        get throws {
            let url = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/\(rawValue).headers.txt")
            guard FileManager.default.fileExists(atPath: url.path) else { return [:] }
            var headers: [String: String] = [:]
            for line in String(decoding: try Data(contentsOf: url), as: UTF8.self).split(separator: "\n") {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            return headers
        }
    }
}

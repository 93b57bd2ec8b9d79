import Foundation

/// The real Unsplash responses kept in Fixtures/ (copied from shared/fixtures/unsplash).
public enum Fixture: String, Sendable {
    case page1 = "photos-2024-01-page1"
    case page2 = "photos-2024-01-page2"
    case photo2025 = "photo-2025-02"

    public var data: Data {
        get throws {
            let url = Bundle.module.resourceURL!.appendingPathComponent("Fixtures/\(rawValue).json")
            return try Data(contentsOf: url)
        }
    }

    public var text: String {
        get throws { String(decoding: try data, as: UTF8.self) }
    }
}

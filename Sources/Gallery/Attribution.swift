import Foundation

/// Credit for a photo as Unsplash's API guidelines ask: "Photo by NAME on Unsplash", the name
/// linking to the photographer's profile and "Unsplash" to unsplash.com, each link carrying
/// photosync's `utm_source` and `utm_medium=referral`.
///
/// Links are built from the username and the id, never taken from the API's JSON, so a
/// stored URL cannot point anywhere but unsplash.com.
public struct Attribution: Sendable, Equatable {
    public static let utm = "utm_source=photosync&utm_medium=referral"

    /// The photographer's name, or their username, or a stand-in when the API gave neither.
    public var photographer: String
    /// `https://unsplash.com/@USERNAME?utm_...`; nil without a username.
    public var photographerURL: String?
    /// The photo's page on unsplash.com, with the utm parameters.
    public var photoURL: String
    public var unsplashURL: String

    public init(photoID: String, username: String?, name: String?) {
        photographer = name ?? username ?? "an Unsplash photographer"
        photographerURL = username.map { "https://unsplash.com/@\(Self.encoded($0))?\(Self.utm)" }
        photoURL = "https://unsplash.com/photos/\(Self.encoded(photoID))?\(Self.utm)"
        unsplashURL = "https://unsplash.com/?\(Self.utm)"
    }

    /// "Photo by NAME on Unsplash".
    public var text: String { "Photo by \(photographer) on Unsplash" }

    /// `text` with every byte but RFC 3986's unreserved ones percent-encoded: one path segment, or
    /// one query value, whatever it holds. Ids, variants and most usernames have none to encode,
    /// and are returned as they are: Foundation's encoder went through a `CFString` for each, 6 %
    /// of a gallery page's CPU.
    static func encoded(_ text: String) -> String {
        let isUnreserved = { (byte: UInt8) in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                true
            default: false
            }
        }
        if text.utf8.allSatisfy(isUnreserved) { return text }
        return text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    /// RFC 3986's unreserved characters.
    static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}

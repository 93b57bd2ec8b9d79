import Foundation
import Hummingbird
import HummingbirdCore

/// The query parameters of the gallery's routes, as an HTML form sends them, decoded by
/// Hummingbird's form decoder (`+` for a space, percent-escapes decoded). A blank value counts
/// as absent, as an empty search box means no search. Numbers stay text until
/// ``integer(_:named:in:)`` checks them, so that a bad one is answered with what is wrong.
struct GalleryForm: Decodable, Sendable {
    /// A full-text search.
    var q: String?
    /// A photographer's username.
    var user: String?
    /// A source's name.
    var source: String?
    /// An image variant.
    var variant: String?
    /// The grid's page, from 1.
    var page: String?
    /// The API's page size and start.
    var limit: String?
    var offset: String?
    /// The API's cursors: a photo's id, to list what comes after or before it.
    var after: String?
    var before: String?

    enum CodingKeys: String, CodingKey {
        case q, user, source, variant, page, limit, offset, after, before
    }

    /// The query of `uri`.
    /// - Throws: ``GalleryError/badParameter(_:)`` when it is not a form (a broken
    ///   percent-escape, a parameter given twice).
    init(_ uri: URI) throws(GalleryError) {
        do {
            self = try URLEncodedFormDecoder().decode(GalleryForm.self, from: uri.query ?? "")
        } catch {
            throw .badParameter("the query cannot be read: \(error)")
        }
    }

    /// The `variant` of `uri`'s query, as ``init(_:)`` reads it. The query `/images` is asked
    /// with, `variant=` and a name of lowercase letters, is read without the form decoder: it
    /// took a tenth of `serve`'s time on an image answered from memory.
    static func variant(of uri: URI) throws(GalleryError) -> String? {
        guard let query = uri.query, !query.isEmpty else { return nil }
        let prefix = "variant="
        if query.hasPrefix(prefix), query.utf8.count > prefix.utf8.count,
            query.utf8.dropFirst(prefix.utf8.count).allSatisfy({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) })
        {
            return String(query.dropFirst(prefix.count))
        }
        return try GalleryForm(uri).variant
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func text(_ key: CodingKeys) throws -> String? {
            let value = try container.decodeIfPresent(String.self, forKey: key)?.trimmingCharacters(in: .whitespaces)
            return value?.isEmpty == false ? value : nil
        }
        q = try text(.q)
        user = try text(.user)
        source = try text(.source)
        variant = try text(.variant)
        page = try text(.page)
        limit = try text(.limit)
        offset = try text(.offset)
        after = try text(.after)
        before = try text(.before)
    }

    /// `text` as a whole number; nil when absent.
    /// - Throws: ``GalleryError/badParameter(_:)`` when it is not a number within `range`.
    static func integer(_ text: String?, named name: String, in range: ClosedRange<Int>) throws(GalleryError) -> Int? {
        guard let text else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw .badParameter(
                "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound) (got '\(text)')")
        }
        return value
    }
}

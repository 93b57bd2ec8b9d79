import Foundation
import Mustache
import PhotoStore

// What the templates render, each property by its name (`MustacheParent`, below); every string
// here is escaped when rendered.

struct SourceOption {
    var name: String
    var selected: Bool
}

/// The search box's state, shown on every page.
struct SearchState {
    var query: String
    var user: String
    var sources: [SourceOption]

    init(query: String?, user: String?, source: String?, knownSources: [String]) {
        self.query = query ?? ""
        self.user = user ?? ""
        sources = knownSources.map { SourceOption(name: $0, selected: $0 == source) }
    }
}

struct Tile {
    var id: String
    var href: String
    /// The smallest stored variant; nil while no image is stored.
    var image: TileImage?
    /// A CSS colour: the photo's own when it is one, a neutral grey otherwise.
    var color: String
    var photographer: String
    var photographerHref: String
}

/// A tile's `<img>`: a model of its own, so that inside `{{#image}}` each name is found in the
/// first model Mustache asks (a URL string there sent every name through reflection first).
///
/// It claims no size: the tile crops whatever the image is to its own box, and the stored
/// variant's pixels are not the photo's `width` and `height` (a `thumb` is 200 wide).
struct TileImage {
    var url: String
    var alt: String
}

struct GridPage {
    var title: String
    var query: String
    var user: String
    var sources: [SourceOption]
    var message: String?
    /// How many photos a search found, in words; nil without a search.
    var matches: String?
    var empty: Bool
    var tiles: [Tile]
    var page: Int
    var newerURL: String?
    var olderURL: String?
}

struct VariantLink {
    var name: String
    var href: String
    var size: String
}

struct SourceLink {
    var name: String
    var href: String
}

/// A photo's tags, as its page links them: each one searches the grid for it.
struct TagList {
    var links: [SourceLink]

    init?(_ tags: [String]) {
        guard !tags.isEmpty else { return nil }
        links = tags.map { SourceLink(name: $0, href: GalleryLinks.grid(query: $0, user: nil, source: nil)) }
    }
}

struct SinglePhotoPage {
    var title: String
    var query: String
    var user: String
    var sources: [SourceOption]
    var imageURL: String?
    /// The frame's shape: the photo's proportions as CSS (``GalleryLinks/shape(width:height:)``).
    var shape: String?
    var color: String?
    var alt: String?
    var description: String?
    var attribution: Attribution
    var photographerHref: String
    var size: String?
    var created: String?
    var likes: String?
    var location: String?
    var exif: [PhotoDetails.Fact]
    /// The photo's tags, each a search of the grid; nil when it has none.
    var tags: TagList?
    var photoSources: [SourceLink]
    var variants: [VariantLink]
    /// No image is stored because it was pruned to stay within `storage_limit`: the frame shows
    /// the photo's colour and links to the photo on Unsplash.
    var pruned = false
    /// The photo's `blur_hash` as a small picture, shown in the frame while no image is stored.
    var blurURL: String?
}

struct ProblemPage {
    var title: String
    var message: String
}

/// Links inside the gallery, with every value percent-encoded.
enum GalleryLinks {
    static func photo(_ id: String) -> String { "/photos/" + Attribution.encoded(id) }

    static func image(_ id: String, variant: ImageVariant) -> String {
        "/images/" + Attribution.encoded(id) + "?" + GalleryLinks.query([("variant", variant.rawValue)])
    }

    /// The grid with these filters; page 1 is left out of the link.
    static func grid(query: String?, user: String?, source: String?, page: Int = 1) -> String {
        let parameters = GalleryLinks.query([
            ("q", query), ("user", user), ("source", source), ("page", page > 1 ? String(page) : nil),
        ])
        return parameters.isEmpty ? "/" : "/?" + parameters
    }

    /// `color` when it is a CSS hex colour (`#rgb` to `#rrggbbaa`), which is all Unsplash sends;
    /// anything else could carry more CSS into a `style` attribute, so it becomes grey.
    static func cssColor(_ color: String?) -> String? {
        guard let color, color.utf8.first == UInt8(ascii: "#"), [4, 5, 7, 9].contains(color.utf8.count),
            color.utf8.dropFirst().allSatisfy(isHexDigit)
        else { return nil }
        return color
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    static let placeholderColor = "#d8d8d8"

    /// The style that gives a photo's image the photo's proportions, as large as the frame
    /// allows (its column's width, and 80 % of the window's height): the pixels of a stored
    /// variant are not the photo's `width` and `height`, so the page claims only the proportion,
    /// which every variant of the photo has. Nil without both.
    static func shape(width: Int?, height: Int?) -> String? {
        guard let width, let height, width > 0, height > 0 else { return nil }
        return "aspect-ratio: \(width) / \(height); width: min(100%, calc(80vh * \(width) / \(height)))"
    }

    /// `pairs` encoded as a query, for links that keep the current filters; empty values are left out.
    static func query(_ pairs: [(String, String?)]) -> String {
        pairs.compactMap { name, value in
            guard let value, !value.isEmpty else { return nil }
            return name + "=" + Attribution.encoded(value)
        }.joined(separator: "&")
    }

    static func byteCount(_ bytes: Int64) -> String {
        ByteCount.text(bytes)
    }
}

// Mustache finds a value by name through `MustacheParent` when a model has it, and through
// reflection (`Mirror`, every property of the model scanned for each name) when not: that was
// more than half of the CPU of a grid page, and of a photo's page. Each name here is its
// property's (a test holds every model to its properties).

/// A page's model, as the templates read it: each property by its name, strings and numbers
/// as ``TemplateText``.
protocol TemplateModel: MustacheParent {
    /// The property named `name`; nil when there is none, or it is nil.
    func value(named name: String) -> Any?
}

extension TemplateModel {
    func child(named name: String) -> Any? {
        TemplateText.wrapping(value(named: name))
    }
}

/// A string or number a template writes, escaped, as it is.
///
/// Mustache writes a plain `String` or `Int` only after failing to cast it to a template, a
/// custom renderable and a lambda, and then through `String(describing:)`, each cast a search
/// of the runtime's conformances: about a tenth of a grid page's CPU for its 300 values. Cast to
/// `MustacheCustomRenderable`, this is written at the second cast.
struct TemplateText: MustacheCustomRenderable, CustomStringConvertible {
    let renderText: String
    var isNull: Bool { false }
    var description: String { renderText }

    /// `value` as a ``TemplateText`` when it is a string or a number, else as it is.
    static func wrapping(_ value: Any?) -> Any? {
        switch value {
        case let text as String: TemplateText(renderText: text)
        case let number as Int: TemplateText(renderText: String(number))
        default: value
        }
    }
}

extension SourceOption: TemplateModel {
    func value(named name: String) -> Any? {
        switch name {
        case "name": self.name
        case "selected": selected
        default: nil
        }
    }
}

extension Tile: TemplateModel {
    func value(named name: String) -> Any? {
        switch name {
        case "id": id
        case "href": href
        case "image": image
        case "color": color
        case "photographer": photographer
        case "photographerHref": photographerHref
        default: nil
        }
    }
}

extension TileImage: TemplateModel {
    func value(named name: String) -> Any? {
        switch name {
        case "url": url
        case "alt": alt
        default: nil
        }
    }
}

extension GridPage: TemplateModel {
    func value(named name: String) -> Any? {
        switch name {
        case "title": title
        case "query": query
        case "user": user
        case "sources": sources
        case "message": message
        case "matches": matches
        case "empty": empty
        case "tiles": tiles
        case "page": page
        case "newerURL": newerURL
        case "olderURL": olderURL
        default: nil
        }
    }
}

extension SinglePhotoPage: TemplateModel {
    func value(named name: String) -> Any? {
        switch name {
        case "title": title
        case "query": query
        case "user": user
        case "sources": sources
        case "imageURL": imageURL
        case "shape": shape
        case "color": color
        case "alt": alt
        case "description": description
        case "attribution": attribution
        case "photographerHref": photographerHref
        case "size": size
        case "created": created
        case "likes": likes
        case "location": location
        case "exif": exif
        case "tags": tags
        case "photoSources": photoSources
        case "variants": variants
        case "pruned": pruned
        case "blurURL": blurURL
        default: nil
        }
    }
}

extension VariantLink: TemplateModel {
    func value(named name: String) -> Any? {
        switch name {
        case "name": self.name
        case "href": href
        case "size": size
        default: nil
        }
    }
}

extension SourceLink: TemplateModel {
    func value(named name: String) -> Any? {
        switch name {
        case "name": self.name
        case "href": href
        default: nil
        }
    }
}

extension TagList: TemplateModel {
    func value(named name: String) -> Any? {
        name == "links" ? links : nil
    }
}

extension PhotoDetails.Fact: TemplateModel {
    func value(named name: String) -> Any? {
        switch name {
        case "name": self.name
        case "value": value
        default: nil
        }
    }
}

extension Attribution: TemplateModel {
    // Attribution is public, so the requirement of the public `MustacheParent` is met by a
    // public method.
    public func child(named name: String) -> Any? {
        TemplateText.wrapping(value(named: name))
    }

    func value(named name: String) -> Any? {
        switch name {
        case "photographer": photographer
        case "photographerURL": photographerURL
        case "photoURL": photoURL
        case "unsplashURL": unsplashURL
        default: nil
        }
    }
}

extension ProblemPage: TemplateModel {
    func value(named name: String) -> Any? {
        switch name {
        case "title": title
        case "message": message
        default: nil
        }
    }
}

import Foundation
import Mustache
import Testing

@testable import Gallery

/// The templates read the models through `MustacheParent`, by name: a property left out of its
/// model's `child(named:)` would render as nothing, without an error.
@Suite("Every property of a page's model is found by its name")
struct PageModelsTests {
    static let sources = [SourceOption(name: "feed", selected: true)]
    static let attribution = Attribution(photoID: "a", username: "ann", name: "Ann")
    static let link = SourceLink(name: "feed", href: "/?source=feed")

    /// One of each model, every optional set, so that each property has a value to find.
    static var models: [any MustacheParent] {
        [
            sources[0], link, attribution, TagList(["lake"])!, PhotoDetails.Fact(name: "Camera", value: "X100"),
            VariantLink(name: "regular", href: "/images/a?variant=regular", size: "1 KB"),
            ProblemPage(title: "Not found", message: "No such photo"),
            Tile(
                id: "a", href: "/photos/a", image: TileImage(url: "/images/a", alt: "lake"),
                color: "#fff", photographer: "Ann", photographerHref: "/?user=ann"),
            TileImage(url: "/images/a", alt: "lake"),
            GridPage(
                title: "photosync", query: "lake", user: "ann", sources: sources, message: "none",
                matches: "2 photos match",
                empty: false,
                tiles: [], page: 2, newerURL: "/", olderURL: "/?page=3"),
            SinglePhotoPage(
                title: "A lake", query: "lake", user: "ann", sources: sources, imageURL: "/images/a",
                shape: "aspect-ratio: 3 / 2", color: "#fff", alt: "lake", description: "A lake",
                attribution: attribution,
                photographerHref: "/?user=ann", size: "3 × 2 px", created: "2026-11-27", likes: "4",
                location: "Kyoto", exif: [PhotoDetails.Fact(name: "Camera", value: "X100")], tags: TagList(["lake"]),
                photoSources: [link], variants: [], pruned: true, blurURL: "data:image/png;base64,"),
        ]
    }

    @Test("each stored property, by its name, is the property's value")
    func everyPropertyIsFound() {
        for model in Self.models {
            for case (let label?, let value) in Mirror(reflecting: model).children {
                let found = model.child(named: label)
                #expect(found != nil, "\(type(of: model)).\(label) is not found by its name")
                #expect(
                    found.map { String(describing: $0) } == Self.unwrapped(value).map { String(describing: $0) },
                    "\(type(of: model)).\(label)")
            }
        }
    }

    /// A property's value as reflection gives it, out of its `Optional`.
    static func unwrapped(_ value: Any) -> Any? {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value }
        return mirror.children.first?.value
    }
}

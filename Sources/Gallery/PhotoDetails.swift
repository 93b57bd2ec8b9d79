import Foundation

/// What a photo's stored JSON says beyond the columns: where it was taken, with what camera, and
/// its tags. Unsplash's feed often leaves these out; a photo's full object (`GET /photos/:id`,
/// stored with `photo_details`) has them.
struct PhotoDetails: Equatable {
    /// "Name, City, Country" as far as the JSON has them; nil when it has none.
    var location: String?
    /// Camera facts in reading order, such as ("Camera", "FUJIFILM X-T4"), ("Aperture", "ƒ/5.6").
    var exif: [Fact]
    /// The photo's `blur_hash`, when the JSON has a well-formed one.
    var blurHash: BlurHash?
    /// The titles of its `tags`, in order, each once.
    var tags: [String]

    struct Fact: Equatable {
        var name: String
        var value: String
    }

    init(json: Data) {
        let stored = (try? JSONDecoder().decode(StoredDetails.self, from: json)) ?? StoredDetails()
        let place = stored.location
        var parts: [String] = []
        for part in [place?.name, place?.city, place?.country].compactMap({ $0?.text }) {
            // Unsplash's `name` is often "City, Country" already: no part twice.
            if !parts.contains(where: { $0.localizedCaseInsensitiveContains(part) }) {
                parts.append(part)
            }
        }
        location = parts.isEmpty ? nil : parts.joined(separator: ", ")

        let exif = stored.exif
        var facts: [Fact] = []
        let camera = [exif?.make?.text, exif?.model?.text].compactMap { $0 }
        if !camera.isEmpty {
            // Models often repeat the make ("Canon" + "Canon EOS R5").
            let name =
                camera.count == 2 && camera[1].localizedCaseInsensitiveContains(camera[0])
                ? camera[1] : camera.joined(separator: " ")
            facts.append(Fact(name: "Camera", value: name))
        }
        if let exposure = exif?.exposureTime?.text { facts.append(Fact(name: "Exposure", value: exposure + " s")) }
        if let aperture = exif?.aperture?.text { facts.append(Fact(name: "Aperture", value: "ƒ/" + aperture)) }
        if let focal = exif?.focalLength?.text { facts.append(Fact(name: "Focal length", value: focal + " mm")) }
        if let iso = exif?.iso?.text { facts.append(Fact(name: "ISO", value: iso)) }
        self.exif = facts
        blurHash = stored.blurHash.flatMap(BlurHash.init)
        var tags: [String] = []
        for tag in stored.tags.compactMap(\.title?.text) where !tags.contains(tag) { tags.append(tag) }
        self.tags = tags
    }
}

/// The parts of Unsplash's photo JSON the details read. A part of another shape than expected
/// is left out, never failing the rest.
private struct StoredDetails: Decodable {
    var location: Location?
    var exif: Exif?
    var blurHash: String?
    var tags: [Tag] = []

    enum CodingKeys: String, CodingKey {
        case location, exif, tags
        case blurHash = "blur_hash"
    }

    init() {}

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        location = try? container.decodeIfPresent(Location.self, forKey: .location)
        exif = try? container.decodeIfPresent(Exif.self, forKey: .exif)
        blurHash = try? container.decodeIfPresent(String.self, forKey: .blurHash)
        tags = (try? container.decodeIfPresent([Tag].self, forKey: .tags)) ?? []
    }

    struct Tag: Decodable {
        var title: Text?

        init(from decoder: any Decoder) throws {
            title = try? decoder.container(keyedBy: CodingKeys.self).decodeIfPresent(Text.self, forKey: .title)
        }

        enum CodingKeys: String, CodingKey { case title }
    }

    struct Location: Decodable {
        var name: Text?
        var city: Text?
        var country: Text?
    }

    struct Exif: Decodable {
        var make: Text?
        var model: Text?
        var exposureTime: Text?
        var aperture: Text?
        var focalLength: Text?
        var iso: Text?

        enum CodingKeys: String, CodingKey {
            case make, model, aperture, iso
            case exposureTime = "exposure_time"
            case focalLength = "focal_length"
        }
    }
}

/// A JSON string (not blank) or number, as text; nil for any other value.
private struct Text: Decodable {
    var text: String?

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(String.self) {
            text = value.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : value
        } else if (try? container.decode(Bool.self)) != nil {
            // JSON's true and false are not facts a person reads as text.
            text = nil
        } else if let value = try? container.decode(Int64.self) {
            text = String(value)
        } else if let value = try? container.decode(Double.self) {
            text = String(value)
        } else {
            text = nil
        }
    }
}

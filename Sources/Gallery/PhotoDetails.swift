import Foundation
import UnsplashAPI

/// What a photo's stored JSON says beyond the columns: where it was taken and with what camera.
/// Unsplash's feed often leaves these out; a photo fetched on its own has them.
struct PhotoDetails: Equatable {
    /// "Name, City, Country" as far as the JSON has them; nil when it has none.
    var location: String?
    /// Camera facts in reading order, such as ("Camera", "FUJIFILM X-T4"), ("Aperture", "ƒ/5.6").
    var exif: [Fact]

    struct Fact: Equatable {
        var name: String
        var value: String
    }

    init(json: Data) {
        let value = (try? JSONDecoder().decode(JSONValue.self, from: json)) ?? .null
        func text(_ value: JSONValue?) -> String? {
            switch value {
            case .string(let text)?: text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : text
            case .int(let number)?: String(number)
            case .double(let number)?: String(number)
            default: nil
            }
        }
        let place = value["location"]
        var parts: [String] = []
        for key in ["name", "city", "country"] {
            // Unsplash's `name` is often "City, Country" already: no part twice.
            if let part = text(place?[key]), !parts.contains(where: { $0.localizedCaseInsensitiveContains(part) }) {
                parts.append(part)
            }
        }
        location = parts.isEmpty ? nil : parts.joined(separator: ", ")

        let exif = value["exif"]
        var facts: [Fact] = []
        let camera = [text(exif?["make"]), text(exif?["model"])].compactMap { $0 }
        if !camera.isEmpty {
            // Models often repeat the make ("Canon" + "Canon EOS R5").
            let name = camera.count == 2 && camera[1].localizedCaseInsensitiveContains(camera[0]) ? camera[1] : camera.joined(separator: " ")
            facts.append(Fact(name: "Camera", value: name))
        }
        if let exposure = text(exif?["exposure_time"]) { facts.append(Fact(name: "Exposure", value: exposure + " s")) }
        if let aperture = text(exif?["aperture"]) { facts.append(Fact(name: "Aperture", value: "ƒ/" + aperture)) }
        if let focal = text(exif?["focal_length"]) { facts.append(Fact(name: "Focal length", value: focal + " mm")) }
        if let iso = text(exif?["iso"]) { facts.append(Fact(name: "ISO", value: iso)) }
        self.exif = facts
    }
}

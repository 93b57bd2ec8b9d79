import Foundation
import PhotoStore
import UnsplashAPI

extension QueryCommand {
    /// The lines `query --id` adds for a photo whose full object is stored (`photo_details`):
    /// its camera, place and tags, and when it was fetched; "" when none is stored. Every value
    /// is the API's, untrusted: each is printed on one line.
    static func detailsText(_ details: StoredPhotoDetails?) -> String {
        guard let details, let photo = try? FullPhoto(body: details.json) else { return "" }
        var lines: [String] = []
        if let exif = photo.exif {
            var camera = [exif.make, exif.model].compactMap { $0 }
            if camera.count == 2, camera[1].localizedCaseInsensitiveContains(camera[0]) { camera.removeFirst() }
            var facts = [camera.joined(separator: " ")]
            if let exposure = exif.exposureTime { facts.append(exposure + " s") }
            if let aperture = exif.aperture { facts.append("f/" + aperture) }
            if let focal = exif.focalLength { facts.append(focal + " mm") }
            if let iso = exif.iso { facts.append("ISO \(iso)") }
            let text = facts.filter { !$0.isEmpty }.joined(separator: ", ")
            if !text.isEmpty { lines.append("  camera      " + oneLine(text)) }
        }
        if let location = photo.location {
            var parts: [String] = []
            for part in [location.name, location.city, location.country].compactMap({ $0 })
            where !part.isEmpty && !parts.contains(where: { $0.localizedCaseInsensitiveContains(part) }) {
                parts.append(part)
            }
            if !parts.isEmpty { lines.append("  location    " + oneLine(parts.joined(separator: ", "))) }
        }
        if !photo.tags.isEmpty { lines.append("  tags        " + oneLine(photo.tags.joined(separator: ", "))) }
        if let fetched = details.fetchedAt { lines.append("  details     fetched \(fetched.iso8601Text)") }
        return lines.map { "\n" + $0 }.joined()
    }

    /// `text` with every line break and other control character as a space.
    private static func oneLine(_ text: String) -> String {
        String(
            String.UnicodeScalarView(text.unicodeScalars.map { $0.properties.generalCategory == .control ? " " : $0 }))
    }
}

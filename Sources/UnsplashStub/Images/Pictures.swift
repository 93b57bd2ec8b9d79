import Basics
import Synchronization

/// The pictures of the stub's photos: each photo's scene (``ScenePainter``) painted at the
/// sizes its images need, encoded as JPEG, and kept, so that a photo asked for again (a second
/// variant, a test's expected SHA-256, a second run of the demo's sync) costs nothing.
///
/// A photo's `color` and `blur_hash` come from its picture too (``swatch(of:)``), as Unsplash's
/// come from the photo: its `color` is the average of every picture of it, at any size.
final class Pictures: Sendable {
    let seed: UInt64
    private let swatches = Mutex<[String: Swatch]>([:])
    private let encoded = Mutex<[PictureKey: JPEGEncoder.Parts]>([:])

    /// The longest side a picture may have, in pixels: about a gallery tile's width, small
    /// enough that painting and encoding a few hundred of them takes seconds in a debug build.
    static let largestSide = 320
    /// The sides tried, largest first, until the picture fits the bytes it is given.
    static let sides = [largestSide, 256, 192, 160, 128, 96, 64, 48, 32, 24, 16]
    static let quality = 80
    /// The side of the small painting a swatch is read from.
    static let swatchSide = 128

    init(seed: UInt64) {
        self.seed = seed
    }

    /// What a photo's JSON says of its picture before anyone downloads it.
    struct Swatch: Sendable, Equatable {
        /// `#rrggbb`: the picture's average colour.
        let color: String
        let blurHash: String
    }

    private struct PictureKey: Hashable {
        let name: String
        let side: Int
    }

    /// What `name` (a photo's id, or `profile-<user id>`) shows.
    func look(of name: String) -> PhotoLook {
        name.hasPrefix("profile-") ? .portrait(seed: seed, name: name) : PhotoLook(seed: seed, id: name)
    }

    /// The colour and blur hash of `name`'s picture, read from a small painting of its scene.
    func swatch(of name: String) -> Swatch {
        if let kept = swatches.withLock({ $0[name] }) { return kept }
        let look = look(of: name)
        let (width, height) = Self.size(of: look, longestSide: Self.swatchSide)
        var painter = ScenePainter(look: look, seed: seed, name: name)
        let canvas = painter.paint(width: width, height: height)
        let average = canvas.average
        let color =
            "#" + Hex.string([average.x, average.y, average.z].map { UInt8((min(1, max(0, $0)) * 255).rounded()) })
        let swatch = Swatch(
            color: color, blurHash: BlurHashEncoder.encode(width: width, height: height, rgb: canvas.bytes))
        swatches.withLock { $0[name] = swatch }
        return swatch
    }

    /// The largest picture of `name` whose file (``JPEGEncoder/Parts``) is at most `byteCount`
    /// bytes, its average colour the swatch's; nil when not even the smallest fits.
    func picture(of name: String, fitting byteCount: Int) -> JPEGEncoder.Parts? {
        let look = look(of: name)
        for side in Self.sides where Self.estimatedBytes(look, side) <= byteCount {
            let parts = picture(of: name, look: look, side: side)
            if parts.count <= byteCount { return parts }
        }
        return nil
    }

    private func picture(of name: String, look: PhotoLook, side: Int) -> JPEGEncoder.Parts {
        let key = PictureKey(name: name, side: side)
        if let kept = encoded.withLock({ $0[key] }) { return kept }
        let (width, height) = Self.size(of: look, longestSide: side)
        var painter = ScenePainter(look: look, seed: seed, name: name)
        var canvas = painter.paint(width: width, height: height)
        canvas.settle(average: Self.paint(swatch(of: name).color))
        let parts = JPEGEncoder.encode(width: width, height: height, rgb: canvas.bytes, quality: Self.quality)
        encoded.withLock { $0[key] = parts }
        return parts
    }

    /// A picture of `look`'s proportions whose longer side is `longestSide`.
    static func size(of look: PhotoLook, longestSide: Int) -> (width: Int, height: Int) {
        let (long, short) = (max(look.width, look.height), min(look.width, look.height))
        let shortSide = max(1, Int((Double(longestSide) * Double(short) / Double(max(1, long))).rounded()))
        return look.width >= look.height ? (longestSide, shortSide) : (shortSide, longestSide)
    }

    /// About what a picture of `side` takes, headers and all (a guess that saves encoding ones
    /// that cannot fit: the stub's scenes take about a third of a byte a pixel at quality 80).
    private static func estimatedBytes(_ look: PhotoLook, _ side: Int) -> Int {
        let (width, height) = size(of: look, longestSide: side)
        return 640 + width * height / 3
    }

    private static func paint(_ hex: String) -> Paint {
        Paint(hex: UInt32(hex.dropFirst(), radix: 16) ?? 0)
    }
}

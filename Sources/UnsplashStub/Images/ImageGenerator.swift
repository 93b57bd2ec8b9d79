import Basics
import Crypto
import Foundation

/// The bytes of the stub's JPEGs: a picture of what the photo shows (``Pictures``), padded to
/// the rendition's size with deterministic noise in comment segments, which decoders skip, and
/// a SHA-256 known in advance.
///
/// The file is the picture's header and tables, the padding, then the picture's scan: a browser
/// shows the picture whatever the size, and a test can ask for 6 MB images without 6 MB of
/// pixels. An image too small to hold any picture is noise between a JPEG's first and last
/// markers, as before pictures.
struct ImageGenerator: Sendable {
    let seed: UInt64
    /// The approximate size of a `regular` image; each photo varies it by up to ±50 %.
    let baseSize: Int
    let pictures: Pictures

    static let minimumSize = 64

    /// The rendition `variant` of `name`'s image; with `pictureOf`, the picture in it is that
    /// photo's instead (its size and padding still `name`'s own): `scale-load`
    /// paints a bounded pool of pictures and lends them to millions of photos.
    func bytes(name: String, variant: String, pictureOf pictureName: String? = nil) -> Data {
        let count = size(name: name, variant: variant)
        var data = noise(count: count, name: name, variant: variant)
        // A comment segment takes 4 bytes at least: room for one whenever the picture is smaller.
        guard let picture = pictures.picture(of: pictureName ?? name, fitting: count - 4) else {
            data.replaceSubrange(0..<JPEGEncoder.header.count, with: JPEGEncoder.header)
            data.replaceSubrange((count - 2)..<count, with: [0xFF, 0xD9])
            return data
        }
        let head = picture.header + picture.tables
        data.replaceSubrange(0..<head.count, with: head)
        var offset = head.count
        var room = count - picture.count
        while room > 0 {
            // A segment's length field counts itself: at most 65535, so 65537 bytes with the marker.
            var segment = min(room, 65_537)
            if (1...3).contains(room - segment) { segment -= 4 }
            let length = segment - 2
            data.replaceSubrange(offset..<(offset + 4), with: [0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)])
            offset += segment
            room -= segment
        }
        data.replaceSubrange(offset..<count, with: picture.scan)
        return data
    }

    /// `count` bytes drawn from the rendition's own generator, 8 at a time.
    private func noise(count: Int, name: String, variant: String) -> Data {
        var generator = Determinism.generator("image:\(seed):\(name):\(variant)")
        var data = Data(count: count)
        data.withUnsafeMutableBytes { (buffer: UnsafeMutableRawBufferPointer) in
            // Each generated word gives 8 bytes, lowest first.
            var offset = 0
            while offset + 8 <= count {
                buffer.storeBytes(of: generator.next().littleEndian, toByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            var word = generator.next()
            while offset < count {
                buffer[offset] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                offset += 1
            }
        }
        return data
    }

    func sha256(name: String, variant: String) -> String {
        Hex.string(SHA256.hash(data: bytes(name: name, variant: variant)))
    }

    /// `regular` is about `baseSize`; larger renditions are bigger, as on the CDN.
    func size(name: String, variant: String) -> Int {
        var generator = Determinism.generator("image-size:\(seed):\(name)")
        let regular = Double(baseSize) * (0.5 + generator.unit())
        let scale: Double
        switch variant {
        case ImageVariant.raw: scale = 3
        case ImageVariant.full: scale = 2
        case ImageVariant.regular: scale = 1
        case ImageVariant.small: scale = 0.4
        case ImageVariant.thumb: scale = 0.2
        default:
            let width = variant.hasPrefix("w") ? Double(variant.dropFirst()) : nil
            scale = min(3, (width ?? 1_080) / 1_080)
        }
        return max(Self.minimumSize, Int(regular * scale))
    }
}

/// The renditions of a photo, named by the `urls` key that points to them.
///
/// An image URL's query decides the rendition, as imgix's parameters decide its output:
/// `w=1080` is `regular`, `w=400` `small`, `w=200` `thumb`, any other `w=N` is `wN`;
/// without `w`, a `q` or `fm` parameter makes it `full`, and a bare URL is `raw`.
public enum ImageVariant {
    public static let raw = "raw"
    public static let full = "full"
    public static let regular = "regular"
    public static let small = "small"
    public static let thumb = "thumb"

    static func named(byQuery query: [(name: String, value: String)]) -> String {
        func value(_ name: String) -> String? { query.last { $0.name == name }?.value }
        if let width = value("w") {
            switch width {
            case "1080": return regular
            case "400": return small
            case "200": return thumb
            default: return "w" + width
            }
        }
        return value("q") != nil || value("fm") != nil ? full : raw
    }
}

import Basics
import Crypto
import Foundation

/// The bytes of the stub's JPEGs: a JFIF header, deterministic noise, an end-of-image marker,
/// and a SHA-256 known in advance.
///
/// When there is room, the noise sits in JPEG comment segments followed by a small real picture
/// (a 24x16 gradient), so a browser decodes it: the gallery's browser test and `photosync demo`
/// show pictures, not broken images. An image too small for that is noise alone.
struct ImageGenerator: Sendable {
    let seed: UInt64
    /// The approximate size of a `regular` image; each photo varies it by up to ±50 %.
    let baseSize: Int

    static let minimumSize = 64

    func bytes(name: String, variant: String) -> Data {
        let count = size(name: name, variant: variant)
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
        data.replaceSubrange(0..<Self.header.count, with: Self.header)
        data.replaceSubrange((count - 2)..<count, with: [0xFF, 0xD9])
        Self.makeDecodable(&data)
        return data
    }

    /// Wraps the noise after the header in comment (COM) segments, which decoders skip, and
    /// ends the file with ``picture``; leaves `data` alone when the noise cannot fill whole
    /// segments (fewer than 4 bytes of room).
    private static func makeDecodable(_ data: inout Data) {
        var room = data.count - header.count - picture.count
        guard room == 0 || room >= 4 else { return }
        var offset = header.count
        while room > 0 {
            // A segment's length field counts itself: at most 65535, so 65537 bytes with the marker.
            var segment = min(room, 65_537)
            if (1...3).contains(room - segment) { segment -= 4 }
            let length = segment - 2
            data.replaceSubrange(offset..<(offset + 4), with: [0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)])
            offset += segment
            room -= segment
        }
        data.replaceSubrange(offset..<data.count, with: picture)
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

    /// SOI, then an APP0 "JFIF" segment.
    private static let header: [UInt8] = [
        0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00,
        0x01, 0x00, 0x00,
    ]

    /// A baseline JPEG of a 24x16 gradient, from its quantization tables to its end-of-image
    /// marker: what follows ``header`` in a real file.
    private static let picture: [UInt8] = [
        0xFF, 0xDB, 0x00, 0x43, 0x00, 0x14, 0x0E, 0x0F, 0x12, 0x0F, 0x0D, 0x14, 0x12, 0x10, 0x12, 0x17, 0x15, 0x14,
        0x18, 0x1E,
        0x32, 0x21, 0x1E, 0x1C, 0x1C, 0x1E, 0x3D, 0x2C, 0x2E, 0x24, 0x32, 0x49, 0x40, 0x4C, 0x4B, 0x47, 0x40, 0x46,
        0x45, 0x50,
        0x5A, 0x73, 0x62, 0x50, 0x55, 0x6D, 0x56, 0x45, 0x46, 0x64, 0x88, 0x65, 0x6D, 0x77, 0x7B, 0x81, 0x82, 0x81,
        0x4E, 0x60,
        0x8D, 0x97, 0x8C, 0x7D, 0x96, 0x73, 0x7E, 0x81, 0x7C, 0xFF, 0xDB, 0x00, 0x43, 0x01, 0x15, 0x17, 0x17, 0x1E,
        0x1A, 0x1E,
        0x3B, 0x21, 0x21, 0x3B, 0x7C, 0x53, 0x46, 0x53, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C,
        0x7C, 0x7C,
        0x7C, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C,
        0x7C, 0x7C,
        0x7C, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C, 0x7C,
        0xFF, 0xC0,
        0x00, 0x11, 0x08, 0x00, 0x10, 0x00, 0x18, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01, 0xFF,
        0xC4, 0x00,
        0x16, 0x00, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x03, 0x00,
        0x04, 0xFF, 0xC4, 0x00, 0x16, 0x10, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00,
        0x00, 0x00, 0x00, 0x02, 0x03, 0xFF, 0xC4, 0x00, 0x16, 0x01, 0x01, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
        0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05, 0x01, 0x03, 0xFF, 0xC4, 0x00, 0x17, 0x11, 0x00, 0x03, 0x01, 0x00,
        0x00, 0x00,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0x21, 0xFF, 0xDA, 0x00, 0x0C,
        0x03, 0x01,
        0x00, 0x02, 0x11, 0x03, 0x11, 0x00, 0x3F, 0x00, 0xCB, 0x19, 0x9A, 0x33, 0x2C, 0xE6, 0x69, 0xCD, 0x6A, 0xE6,
        0x10, 0xA0,
        0x51, 0x9A, 0x6B, 0x9C, 0xD0, 0xE6, 0x7D, 0x17, 0x4A, 0x61, 0xFF, 0xD9,
    ]
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

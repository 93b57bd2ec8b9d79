import Crypto
import Foundation

/// The bytes of the stub's "JPEGs": a JFIF header, deterministic noise, an end-of-image
/// marker. Not decodable pictures, but they look like JPEG to anything that sniffs the header,
/// and their SHA-256 is known in advance.
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
        return data
    }

    func sha256(name: String, variant: String) -> String {
        Determinism.hex(SHA256.hash(data: bytes(name: name, variant: variant)))
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

import Basics
import Foundation

/// A photo's `blur_hash` (<https://blurha.sh>), the few colours Unsplash sends so that an app can
/// show the shape of a photo before its image, decoded into a small picture: the placeholder of
/// a photo whose image was pruned.
///
/// The hash is untrusted input: anything that is not a well-formed hash decodes to nil.
struct BlurHash: Equatable {
    /// Components across and down, 1-9 each.
    let columns: Int
    let rows: Int
    /// Each component's colour in linear RGB, row by row; the first is the average colour.
    let colors: [SIMD3<Double>]

    private static let digits = Array(
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~".utf8)
    private static let digitValues: [UInt8: Int] = Dictionary(
        uniqueKeysWithValues: digits.enumerated().map { ($1, $0) })

    init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count >= 6, let size = Self.number(bytes[0..<1]) else { return nil }
        columns = size % 9 + 1
        rows = size / 9 + 1
        guard bytes.count == 4 + 2 * columns * rows,
            let quantisedMaximum = Self.number(bytes[1..<2]), let average = Self.number(bytes[2..<6])
        else { return nil }
        let maximum = Double(quantisedMaximum + 1) / 166
        var colors = [
            SIMD3(
                SRGB.linear(average >> 16), SRGB.linear((average >> 8) & 255), SRGB.linear(average & 255))
        ]
        for index in 1..<(columns * rows) {
            guard let value = Self.number(bytes[(4 + 2 * index)..<(6 + 2 * index)]) else { return nil }
            let quantised = SIMD3(value / (19 * 19), (value / 19) % 19, value % 19)
            colors.append(
                SIMD3(
                    Self.signedSquare(quantised.x) * maximum, Self.signedSquare(quantised.y) * maximum,
                    Self.signedSquare(quantised.z) * maximum))
        }
        self.colors = colors
    }

    /// The picture at `width` × `height` pixels, as sRGB bytes (red, green, blue) row by row from
    /// the top.
    func pixels(width: Int, height: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                var color = SIMD3<Double>(0, 0, 0)
                for row in 0..<rows {
                    let down = cos(Double.pi * Double(y * row) / Double(height))
                    for column in 0..<columns {
                        let across = cos(Double.pi * Double(x * column) / Double(width))
                        color += colors[column + row * columns] * (across * down)
                    }
                }
                bytes += [SRGB.byte(color.x), SRGB.byte(color.y), SRGB.byte(color.z)]
            }
        }
        return bytes
    }

    /// The picture as a `data:` URL of an uncompressed BMP, about 32 pixels on its longer side
    /// with the photo's proportions: a few kilobytes, which the browser scales up smoothly.
    func dataURL(aspectRatio: Double) -> String {
        let ratio = aspectRatio.isFinite && aspectRatio > 0 ? min(max(aspectRatio, 1.0 / 8), 8) : 1
        let width = ratio >= 1 ? 32 : max(4, Int((32 * ratio).rounded()))
        let height = ratio >= 1 ? max(4, Int((32 / ratio).rounded())) : 32
        return "data:image/bmp;base64,"
            + Self.bitmap(width: width, height: height, rgb: pixels(width: width, height: height))
            .base64EncodedString()
    }

    /// A 24-bit BMP: rows bottom-up, each pixel blue-green-red, each row padded to 4 bytes.
    static func bitmap(width: Int, height: Int, rgb: [UInt8]) -> Data {
        let rowBytes = (width * 3 + 3) / 4 * 4
        let imageBytes = rowBytes * height
        var data = Data()
        func append(_ value: Int, bytes: Int) {
            for shift in 0..<bytes { data.append(UInt8(truncatingIfNeeded: value >> (8 * shift))) }
        }
        data.append(contentsOf: Array("BM".utf8))
        append(54 + imageBytes, bytes: 4)
        append(0, bytes: 4)
        append(54, bytes: 4)
        append(40, bytes: 4)  // BITMAPINFOHEADER
        append(width, bytes: 4)
        append(height, bytes: 4)
        append(1, bytes: 2)
        append(24, bytes: 2)
        append(0, bytes: 4)  // no compression
        append(imageBytes, bytes: 4)
        append(2835, bytes: 4)  // 72 dpi
        append(2835, bytes: 4)
        append(0, bytes: 4)
        append(0, bytes: 4)
        for y in (0..<height).reversed() {
            for x in 0..<width {
                let pixel = (y * width + x) * 3
                data.append(contentsOf: [rgb[pixel + 2], rgb[pixel + 1], rgb[pixel]])
            }
            data.append(contentsOf: [UInt8](repeating: 0, count: rowBytes - width * 3))
        }
        return data
    }

    private static func number(_ bytes: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in bytes {
            guard let digit = digitValues[byte] else { return nil }
            value = value * 83 + digit
        }
        return value
    }

    private static func signedSquare(_ quantised: Int) -> Double {
        let value = Double(quantised - 9) / 9
        return value < 0 ? -(value * value) : value * value
    }
}

import Basics
import Foundation

/// A picture's BlurHash (<https://blurha.sh>), as Unsplash sends it in each photo's
/// `blur_hash`: the picture's average colour and its broadest shapes, 4 components across and 3
/// down, in 28 characters of base 83. The algorithm is the reference implementation's
/// (`encode` in woltapp/blurhash's C and Swift versions), written again for the stub's pixels.
enum BlurHashEncoder {
    static let columns = 4
    static let rows = 3

    /// The hash of `rgb` (three sRGB bytes a pixel, row by row).
    static func encode(width: Int, height: Int, rgb: [UInt8]) -> String {
        let linear = rgb.map { linearTable[Int($0)] }
        var factors: [SIMD3<Float>] = []
        for row in 0..<rows {
            for column in 0..<columns {
                let across = (0..<width).map { Float(cos(Double.pi * Double(column * $0) / Double(width))) }
                let down = (0..<height).map { Float(cos(Double.pi * Double(row * $0) / Double(height))) }
                var sum = SIMD3<Float>(0, 0, 0)
                for y in 0..<height {
                    for x in 0..<width {
                        let pixel = (y * width + x) * 3
                        sum += SIMD3(linear[pixel], linear[pixel + 1], linear[pixel + 2]) * (across[x] * down[y])
                    }
                }
                let normalisation: Float = row == 0 && column == 0 ? 1 : 2
                factors.append(sum * normalisation / Float(width * height))
            }
        }
        var hash = base83((columns - 1) + (rows - 1) * 9, length: 1)
        let ac = factors.dropFirst()
        let largest = ac.map { max(abs($0.x), abs($0.y), abs($0.z)) }.max() ?? 0
        let quantisedMaximum = ac.isEmpty ? 0 : max(0, min(82, Int((largest * 166 - 0.5).rounded(.down))))
        let maximum = ac.isEmpty ? 1 : Float(quantisedMaximum + 1) / 166
        hash += base83(quantisedMaximum, length: 1)
        let dc = factors[0]
        hash += base83(
            Int(SRGB.byte(Double(dc.x))) << 16 | Int(SRGB.byte(Double(dc.y))) << 8 | Int(SRGB.byte(Double(dc.z))),
            length: 4)
        for factor in ac {
            func quantised(_ value: Float) -> Int {
                let signedRoot = copysign(abs(value / maximum).squareRoot(), value)
                return max(0, min(18, Int((signedRoot * 9 + 9.5).rounded(.down))))
            }
            hash += base83(quantised(factor.x) * 19 * 19 + quantised(factor.y) * 19 + quantised(factor.z), length: 2)
        }
        return hash
    }

    private static let digits = Array(
        "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~")

    private static func base83(_ value: Int, length: Int) -> String {
        var text = ""
        for place in (0..<length).reversed() {
            var divisor = 1
            for _ in 0..<place { divisor *= 83 }
            text.append(digits[(value / divisor) % 83])
        }
        return text
    }

    /// sRGB bytes in linear light.
    private static let linearTable: [Float] = (0...255).map { Float(SRGB.linear($0)) }
}

import Foundation
import Testing

@testable import Gallery

@Suite struct BlurHashTests {
    /// The hash of blurha.sh's own example, as Unsplash sends them: 4 by 3 components.
    static let example = "LEHV6nWB2yk8pyo0adR*.7kCMdnj"

    @Test func aHashWithOneComponentIsItsAverageColourEverywhere() throws {
        // "00": one component and the smallest maximum, then 0xFF6600 as four base-83 digits.
        let hash = try #require(BlurHash("00" + Self.base83(0xFF6600, digits: 4)))
        #expect(hash.columns == 1 && hash.rows == 1)
        let pixels = hash.pixels(width: 3, height: 2)
        #expect(pixels == Array([[UInt8]](repeating: [0xFF, 0x66, 0x00], count: 6).joined()))
    }

    @Test func theExampleDecodesToItsComponentsAndItsAverageColour() throws {
        let hash = try #require(BlurHash(Self.example))
        #expect(hash.columns == 4 && hash.rows == 3 && hash.colors.count == 12)
        // The picture's mean is its first component, the average colour (the cosines of the
        // others sum to about nothing over the picture).
        let pixels = hash.pixels(width: 32, height: 24)
        let average = try #require(BlurHash("00" + String(Self.example.dropFirst(2).prefix(4))))
            .pixels(width: 1, height: 1)
        for channel in 0..<3 {
            let values = stride(from: channel, to: pixels.count, by: 3).map { Double(pixels[$0]) }
            let mean = values.reduce(0, +) / Double(values.count)
            #expect(abs(mean - Double(average[channel])) < 24, "channel \(channel): \(mean) vs \(average[channel])")
            // And it is not flat: the other components draw something.
            #expect((values.max() ?? 0) - (values.min() ?? 0) > 20)
        }
    }

    @Test(arguments: [
        "", "L", "LEHV6nWB2yk8pyo0adR*.7kCMdn", "LEHV6nWB2yk8pyo0adR*.7kCMdnjX", "LEHV6nWB2yk8pyo0adR*.7kCMd\"j",
    ])
    func aMalformedHashDecodesToNothing(_ text: String) {
        #expect(BlurHash(text) == nil)
    }

    @Test func theBitmapIsABMPOfTheGivenSizeWithPaddedRowsBottomUp() {
        // 3 by 2: rows of 9 bytes padded to 12. Top row red, bottom row blue.
        let red: [UInt8] = [255, 0, 0]
        let blue: [UInt8] = [0, 0, 255]
        let rgb = Array([red, red, red, blue, blue, blue].joined())
        let data = BlurHash.bitmap(width: 3, height: 2, rgb: rgb)
        #expect(data.count == 54 + 24)
        #expect(data.prefix(2) == Data("BM".utf8))
        #expect(Self.integer(data, at: 2) == data.count)
        #expect(Self.integer(data, at: 18) == 3 && Self.integer(data, at: 22) == 2)
        // The first row stored is the bottom one, blue, in blue-green-red order.
        #expect(Array(data[54..<57]) == [255, 0, 0])
        #expect(Array(data[66..<69]) == [0, 0, 255])
    }

    static func base83(_ value: Int, digits: Int) -> String {
        let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~")
        var result = ""
        var value = value
        for _ in 0..<digits {
            result = String(alphabet[value % 83]) + result
            value /= 83
        }
        return result
    }

    static func integer(_ data: Data, at offset: Int) -> Int {
        (0..<4).reduce(0) { $0 | Int(data[data.startIndex + offset + $1]) << (8 * $1) }
    }
}

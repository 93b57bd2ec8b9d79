import Foundation
import PhotoStore
import Testing

@Suite("Byte counts")
struct ByteCountTests {
    @Test func writesWhatByteCountFormatterWritesInEnglish() {
        // GIVEN byte counts of every unit, the edges between units, and halves that round to even
        // (not 0, which the formatter writes `Zero KB`)
        var generator = SystemRandomNumberGenerator()
        var counts: [Int64] =
            Array(1...1_100) + [
                1_499, 1_500, 2_500, 3_500, 999_499, 999_500, 999_999, 1_000_000, 1_049_999, 1_050_000, 1_150_000,
                1_250_000, 20_971_520, 999_949_999, 999_950_000, 1_000_000_000, 1_005_000_000, 1_015_000_000,
                1_234_567_890_123, 9_223_372_036_854_775_807,
            ]
        for magnitude in [Int64(10_000), 1_000_000, 1_000_000_000, 1_000_000_000_000, 1_000_000_000_000_000] {
            counts += (0..<2_000).map { _ in Int64.random(in: 1_000...(magnitude * 1_000), using: &generator) }
            // and counts a half step from a rounding point
            counts += (1...200).map { Int64($0) * magnitude / 200 + magnitude / 2_000 }
        }

        // THEN the texts are the formatter's
        for count in counts {
            #expect(
                ByteCount.text(count) == ByteCountFormatter.string(fromByteCount: count, countStyle: .file), "\(count)")
        }
    }

    @Test func writesTheUnitsPeopleRead() {
        #expect(ByteCount.text(0) == "0 bytes")
        #expect(ByteCount.text(1) == "1 byte")
        #expect(ByteCount.text(999) == "999 bytes")
        #expect(ByteCount.text(69_499) == "69 KB")
        #expect(ByteCount.text(999_500) == "1,000 KB")
        #expect(ByteCount.text(1_500_000) == "1.5 MB")
        #expect(ByteCount.text(2_000_000) == "2 MB")
        #expect(ByteCount.text(2_250_000_000) == "2.25 GB")
        #expect(ByteCount.text(2_205_000_000) == "2.2 GB")
    }
}

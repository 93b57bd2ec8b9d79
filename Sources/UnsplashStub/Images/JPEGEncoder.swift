import Foundation

/// A baseline JPEG encoder (ITU T.81): 8x8 DCT blocks of Y, Cb and Cr at full resolution,
/// quantised with the standard tables scaled as libjpeg scales them by quality, and coded with
/// the standard Huffman tables of Annex K (the luminance ones, for all three components).
///
/// Enough for the stub to serve pictures any decoder reads, from a few hundred bytes up, with
/// no image library on the machine. Its output ends with the end-of-image marker; where it
/// begins is told apart (``Parts``) so that the stub can put its padding between them.
enum JPEGEncoder {
    /// What a picture's file holds, in order: `header` (start of image, JFIF), `tables`
    /// (quantisation, frame, Huffman), then `scan` (start of scan, the data, end of image).
    /// Comment segments may go between `tables` and `scan`.
    struct Parts: Sendable {
        let header: [UInt8]
        let tables: [UInt8]
        let scan: [UInt8]

        var count: Int { header.count + tables.count + scan.count }
    }

    /// `rgb` (three bytes a pixel, row by row) as a JPEG of `quality` 1-100.
    static func encode(width: Int, height: Int, rgb: [UInt8], quality: Int) -> Parts {
        precondition(width > 0 && height > 0 && rgb.count == width * height * 3)
        let tables = [quantisation(luminanceBase, quality), quantisation(chrominanceBase, quality)]
        var head: [UInt8] = []
        // The quantisation tables, in zigzag order.
        head += [0xFF, 0xDB] + bigEndian(2 + 2 * 65)
        for (index, table) in tables.enumerated() {
            head.append(UInt8(index))
            head += zigzag.map { UInt8(table[$0]) }
        }
        // The frame: 8-bit samples, three components, none subsampled.
        head += [0xFF, 0xC0] + bigEndian(17) + [8] + bigEndian(height) + bigEndian(width) + [3]
        head += [1, 0x11, 0, 2, 0x11, 1, 3, 0x11, 1]
        // The Huffman tables: DC (class 0) and AC (class 1), both number 0.
        head += [0xFF, 0xC4] + bigEndian(2 + 17 + dcValues.count + 17 + acValues.count)
        head += [0x00] + dcCounts + dcValues + [0x10] + acCounts + acValues

        // The three planes (Y, Cb, Cr, each centred on 0), converted once.
        let planes = Self.planes(width: width, height: height, rgb: rgb)
        let divisors = tables.map(Self.divisors)
        var writer = BitWriter()
        var predictions = [0, 0, 0]
        var block = [Float](repeating: 0, count: 64)
        var coefficients = [Int](repeating: 0, count: 64)
        for blockY in stride(from: 0, to: height, by: 8) {
            for blockX in stride(from: 0, to: width, by: 8) {
                for component in 0..<3 {
                    planes[component].withUnsafeBufferPointer { plane in
                        block.withUnsafeMutableBufferPointer { block in
                            // Edge blocks repeat the last row and column, as encoders do.
                            for y in 0..<8 {
                                let row = min(blockY + y, height - 1) * width
                                for x in 0..<8 { block[y * 8 + x] = plane[row + min(blockX + x, width - 1)] }
                            }
                            Self.transform(block)
                        }
                    }
                    let divisor = divisors[component == 0 ? 0 : 1]
                    for index in 0..<64 {
                        let position = zigzag[index]
                        coefficients[index] = Int((block[position] / divisor[position]).rounded())
                    }
                    let difference = coefficients[0] - predictions[component]
                    predictions[component] = coefficients[0]
                    writer.write(dc: difference)
                    writer.write(ac: coefficients)
                }
            }
        }
        let scan =
            [0xFF, 0xDA] + bigEndian(12) + [3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 63, 0] + writer.finished()
            + [0xFF, 0xD9]
        return Parts(header: header, tables: head, scan: scan)
    }

    /// Start of image, then a JFIF APP0 segment (version 1.1, no density, no thumbnail).
    static let header: [UInt8] = [
        0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00,
        0x01, 0x00, 0x00,
    ]

    /// Y, Cb and Cr of `rgb` as T.81's JFIF conversion gives them, each less 128.
    private static func planes(width: Int, height: Int, rgb: [UInt8]) -> [[Float]] {
        var (luma, blue, red) = ([Float](), [Float](), [Float]())
        for plane in [0, 1, 2] {
            var values = [Float](repeating: 0, count: width * height)
            values.withUnsafeMutableBufferPointer { values in
                rgb.withUnsafeBufferPointer { rgb in
                    for pixel in 0..<(width * height) {
                        let (r, g, b) = (Float(rgb[pixel * 3]), Float(rgb[pixel * 3 + 1]), Float(rgb[pixel * 3 + 2]))
                        values[pixel] =
                            plane == 0
                            ? 0.299 * r + 0.587 * g + 0.114 * b - 128
                            : plane == 1
                                ? -0.168_736 * r - 0.331_264 * g + 0.5 * b : 0.5 * r - 0.418_688 * g - 0.081_312 * b
                    }
                }
            }
            switch plane {
            case 0: luma = values
            case 1: blue = values
            default: red = values
            }
        }
        return [luma, blue, red]
    }

    /// The forward DCT of a block, in place, as libjpeg's `jfdctflt.c` computes it (Arai,
    /// Agui and Nakajima's: 5 multiplications for 8 points): each coefficient comes out
    /// `8 x aan[u] x aan[v]` times too large, which ``divisors(_:)`` takes back with the
    /// quantisation. Sixteen passes over 8 values each, in locals: in a debug build each read of
    /// the block is a call, and the plain DCT read it a thousand times.
    private static func transform(_ block: UnsafeMutableBufferPointer<Float>) {
        for (step, stride) in [(8, 1), (1, 8)] {
            for outer in 0..<8 {
                let s = outer * step
                let (d0, d1, d2, d3) = (block[s], block[s + stride], block[s + 2 * stride], block[s + 3 * stride])
                let (d4, d5, d6, d7) = (
                    block[s + 4 * stride], block[s + 5 * stride], block[s + 6 * stride], block[s + 7 * stride]
                )
                let (tmp0, tmp7, tmp1, tmp6) = (d0 + d7, d0 - d7, d1 + d6, d1 - d6)
                let (tmp2, tmp5, tmp3, tmp4) = (d2 + d5, d2 - d5, d3 + d4, d3 - d4)
                // The even part.
                let (even10, even13, even11, even12) = (tmp0 + tmp3, tmp0 - tmp3, tmp1 + tmp2, tmp1 - tmp2)
                block[s] = even10 + even11
                block[s + 4 * stride] = even10 - even11
                let z1 = (even12 + even13) * 0.707_106_781
                block[s + 2 * stride] = even13 + z1
                block[s + 6 * stride] = even13 - z1
                // The odd part.
                let (odd10, odd11, odd12) = (tmp4 + tmp5, tmp5 + tmp6, tmp6 + tmp7)
                let z5 = (odd10 - odd12) * 0.382_683_433
                let z2 = 0.541_196_100 * odd10 + z5
                let z4 = 1.306_562_965 * odd12 + z5
                let z3 = odd11 * 0.707_106_781
                let (z11, z13) = (tmp7 + z3, tmp7 - z3)
                block[s + 5 * stride] = z13 + z2
                block[s + 3 * stride] = z13 - z2
                block[s + stride] = z11 + z4
                block[s + 7 * stride] = z11 - z4
            }
        }
    }

    /// What each coefficient of ``transform(_:)`` is divided by to be quantised with `table`
    /// (row by row), as libjpeg's `jcdctmgr.c` makes them.
    private static func divisors(_ table: [Int]) -> [Float] {
        let aan: [Float] = [
            1, 1.387_039_845, 1.306_562_965, 1.175_875_602, 1, 0.785_694_958, 0.541_196_100, 0.275_899_379,
        ]
        return (0..<64).map { Float(table[$0]) * aan[$0 / 8] * aan[$0 % 8] * 8 }
    }

    private static func quantisation(_ base: [Int], _ quality: Int) -> [Int] {
        let quality = min(100, max(1, quality))
        let scale = quality < 50 ? 5_000 / quality : 200 - 2 * quality
        return base.map { min(255, max(1, ($0 * scale + 50) / 100)) }
    }

    private static func bigEndian(_ value: Int) -> [UInt8] {
        [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// The position in a block (row by row) of each coefficient in zigzag order.
    private static let zigzag = [
        0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14,
        21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53,
        60, 61, 54, 47, 55, 62, 63,
    ]

    /// Annex K's tables K.1 and K.2, row by row.
    private static let luminanceBase: [Int] = [
        16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29,
        51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121,
        120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
    ]
    private static let chrominanceBase: [Int] = [
        17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99,
        99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
        99, 99, 99, 99, 99, 99, 99, 99,
    ]

    /// Annex K.3's luminance tables: how many codes of each length 1-16, and their symbols.
    fileprivate static let dcCounts: [UInt8] = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
    fileprivate static let dcValues: [UInt8] = Array(0...11)
    fileprivate static let acCounts: [UInt8] = [0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7D]
    fileprivate static let acValues: [UInt8] = [
        0x01, 0x02, 0x03, 0x00, 0x04, 0x11, 0x05, 0x12, 0x21, 0x31, 0x41, 0x06, 0x13, 0x51, 0x61, 0x07, 0x22, 0x71,
        0x14, 0x32, 0x81, 0x91, 0xA1, 0x08, 0x23, 0x42, 0xB1, 0xC1, 0x15, 0x52, 0xD1, 0xF0, 0x24, 0x33, 0x62, 0x72,
        0x82, 0x09, 0x0A, 0x16, 0x17, 0x18, 0x19, 0x1A, 0x25, 0x26, 0x27, 0x28, 0x29, 0x2A, 0x34, 0x35, 0x36, 0x37,
        0x38, 0x39, 0x3A, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x49, 0x4A, 0x53, 0x54, 0x55, 0x56, 0x57, 0x58, 0x59,
        0x5A, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6A, 0x73, 0x74, 0x75, 0x76, 0x77, 0x78, 0x79, 0x7A, 0x83,
        0x84, 0x85, 0x86, 0x87, 0x88, 0x89, 0x8A, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97, 0x98, 0x99, 0x9A, 0xA2, 0xA3,
        0xA4, 0xA5, 0xA6, 0xA7, 0xA8, 0xA9, 0xAA, 0xB2, 0xB3, 0xB4, 0xB5, 0xB6, 0xB7, 0xB8, 0xB9, 0xBA, 0xC2, 0xC3,
        0xC4, 0xC5, 0xC6, 0xC7, 0xC8, 0xC9, 0xCA, 0xD2, 0xD3, 0xD4, 0xD5, 0xD6, 0xD7, 0xD8, 0xD9, 0xDA, 0xE1, 0xE2,
        0xE3, 0xE4, 0xE5, 0xE6, 0xE7, 0xE8, 0xE9, 0xEA, 0xF1, 0xF2, 0xF3, 0xF4, 0xF5, 0xF6, 0xF7, 0xF8, 0xF9, 0xFA,
    ]

    /// The code (value and length) of each symbol, by symbol, as T.81's Annex C derives them
    /// from the counts; (0, 0) for a symbol without one.
    fileprivate static func codes(counts: [UInt8], values: [UInt8]) -> [(code: Int, length: Int)] {
        var codes = [(code: Int, length: Int)](repeating: (0, 0), count: 256)
        var (code, next) = (0, 0)
        for length in 1...16 {
            for _ in 0..<Int(counts[length - 1]) {
                codes[Int(values[next])] = (code, length)
                code += 1
                next += 1
            }
            code <<= 1
        }
        return codes
    }

    fileprivate static let dcCodes = codes(counts: dcCounts, values: dcValues)
    fileprivate static let acCodes = codes(counts: acCounts, values: acValues)
}

/// The entropy-coded data of a scan: bits packed from the top of each byte, a 0 stuffed after
/// each 0xFF so that no marker appears inside it, the last byte filled with ones.
private struct BitWriter {
    private var bytes: [UInt8] = []
    private var buffer = 0
    private var filled = 0

    mutating func write(_ value: Int, length: Int) {
        guard length > 0 else { return }
        buffer = buffer << length | (value & (1 << length - 1))
        filled += length
        while filled >= 8 {
            let byte = UInt8(buffer >> (filled - 8) & 0xFF)
            bytes.append(byte)
            if byte == 0xFF { bytes.append(0) }
            filled -= 8
        }
        buffer &= (1 << filled) - 1
    }

    /// A coefficient's size category, and its bits: a negative one is written as its value - 1.
    private static func magnitude(_ value: Int) -> (size: Int, bits: Int) {
        let size = value == 0 ? 0 : Int.bitWidth - abs(value).leadingZeroBitCount
        return (size, value < 0 ? value - 1 : value)
    }

    mutating func write(dc difference: Int) {
        let (size, bits) = Self.magnitude(difference)
        let code = JPEGEncoder.dcCodes[size]
        write(code.code, length: code.length)
        write(bits, length: size)
    }

    /// The 63 AC coefficients of a block in zigzag order (`coefficients[1...]`), run-length coded.
    mutating func write(ac coefficients: [Int]) {
        var zeros = 0
        for index in 1..<64 {
            let value = coefficients[index]
            if value == 0 {
                zeros += 1
                continue
            }
            while zeros >= 16 {
                let run = JPEGEncoder.acCodes[0xF0]
                write(run.code, length: run.length)
                zeros -= 16
            }
            let (size, bits) = Self.magnitude(value)
            let code = JPEGEncoder.acCodes[zeros << 4 | size]
            write(code.code, length: code.length)
            write(bits, length: size)
            zeros = 0
        }
        if zeros > 0 {
            let end = JPEGEncoder.acCodes[0x00]
            write(end.code, length: end.length)
        }
    }

    mutating func finished() -> [UInt8] {
        if filled > 0 { write((1 << (8 - filled)) - 1, length: 8 - filled) }
        return bytes
    }
}

import Foundation

/// A JPEG as a decoder of record sees it: libjpeg-turbo's `djpeg` (Debian's
/// libjpeg-turbo-progs, which `scripts/test` installs) turns it into pixels, so that a test
/// checks what a browser or an image viewer would show, not what the encoder meant to write.
public struct DecodedPicture: Sendable {
    public let width: Int
    public let height: Int
    /// Red, green and blue bytes of each pixel, row by row from the top.
    public let rgb: [UInt8]

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Decodes `jpeg` with `djpeg`; throws when it is not a JPEG djpeg reads, or djpeg is missing.
    public static func decoding(_ jpeg: Data) async throws -> DecodedPicture {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/djpeg") else {
            throw Failure(description: "no /usr/bin/djpeg: install libjpeg-turbo-progs (scripts/test does)")
        }
        let directory = FileManager.default.temporaryDirectory.appending(path: "picture-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (input, output) = (directory.appending(path: "in.jpg"), directory.appending(path: "out.ppm"))
        try jpeg.write(to: input)
        let errors = try Spawned.pipe()
        let djpeg = try Spawned(
            "/usr/bin/djpeg", ["-ppm", "-outfile", output.path, input.path], error: errors.write.fileDescriptor)
        try? errors.write.close()
        let ending = await djpeg.ending()
        let message = String(decoding: errors.read.readDataToEndOfFile(), as: UTF8.self)
        try? errors.read.close()
        // djpeg warns (exit 2) of data it had to guess at; a picture decoded whole warns of nothing.
        guard ending.status == 0, !ending.bySignal, message.isEmpty else {
            throw Failure(description: "djpeg exited \(ending.status): \(message)")
        }
        return try portablePixmap(try Data(contentsOf: output))
    }

    /// A binary PPM (`P6`, 255 levels), as djpeg writes one.
    static func portablePixmap(_ data: Data) throws -> DecodedPicture {
        let bytes = [UInt8](data)
        var fields: [Int] = []
        var index = 2
        guard bytes.starts(with: Array("P6".utf8)) else { throw Failure(description: "not a binary PPM") }
        while fields.count < 3, index < bytes.count {
            while index < bytes.count, bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\n") {
                index += 1
            }
            var value = 0
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                index += 1
            }
            fields.append(value)
        }
        index += 1
        guard fields.count == 3, fields[2] == 255, bytes.count - index == fields[0] * fields[1] * 3 else {
            throw Failure(description: "a PPM header djpeg does not write: \(fields)")
        }
        return DecodedPicture(width: fields[0], height: fields[1], rgb: Array(bytes[index...]))
    }

    /// The mean of each channel, 0-255.
    public var average: SIMD3<Double> {
        var sum = SIMD3<Double>(0, 0, 0)
        for pixel in stride(from: 0, to: rgb.count, by: 3) {
            sum += SIMD3(Double(rgb[pixel]), Double(rgb[pixel + 1]), Double(rgb[pixel + 2]))
        }
        return sum / Double(max(1, width * height))
    }

    /// The picture shrunk to `side` x `side` cells, each the mean of the pixels in it (0-1): how
    /// two pictures of different sizes are compared.
    public func cells(_ side: Int) -> [Double] {
        var sums = [Double](repeating: 0, count: side * side * 3)
        var counts = [Double](repeating: 0, count: side * side)
        for y in 0..<height {
            for x in 0..<width {
                let cell = (y * side / height) * side + x * side / width
                counts[cell] += 1
                for channel in 0..<3 { sums[cell * 3 + channel] += Double(rgb[(y * width + x) * 3 + channel]) }
            }
        }
        return sums.indices.map { sums[$0] / max(1, counts[$0 / 3]) / 255 }
    }
}

/// `#rrggbb` as red, green and blue, 0-255; nil when it is not that.
public func rgb(ofHexColor color: String) -> SIMD3<Double>? {
    guard color.utf8.count == 7, color.hasPrefix("#"), let value = UInt32(color.dropFirst(), radix: 16) else {
        return nil
    }
    return SIMD3(Double(value >> 16 & 0xFF), Double(value >> 8 & 0xFF), Double(value & 0xFF))
}

/// The two most alike of `pictures` (each an id and its ``DecodedPicture/cells(_:)``), and how
/// far apart they are: the mean difference of their cells, 0 (the same) to 1.
///
/// Each picture's cells are first stretched to its own darkest and brightest, as an eye adapts
/// to a photo: two night scenes differ by what is in them, though both are mostly dark.
public func closestPair(_ pictures: [(id: String, cells: [Double])]) -> (difference: Double, ids: (String, String)) {
    let stretched = pictures.map { picture in
        let (low, high) = (picture.cells.min() ?? 0, picture.cells.max() ?? 1)
        return picture.cells.map { ($0 - low) / max(high - low, 0.02) }
    }
    var closest = (difference: Double.infinity, ids: ("", ""))
    for first in pictures.indices {
        for second in pictures.indices where second > first {
            let (a, b) = (stretched[first], stretched[second])
            let difference = zip(a, b).map { abs($0 - $1) }.reduce(0, +) / Double(max(1, a.count))
            if difference < closest.difference { closest = (difference, (pictures[first].id, pictures[second].id)) }
        }
    }
    return closest
}

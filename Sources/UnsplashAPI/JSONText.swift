import Foundation

/// Where the elements of a JSON array lie in its text, so that each can be decoded and kept
/// exactly as it was sent, without building the whole document as values first.
///
/// Structural only: it follows brackets and commas outside strings, and expects a document that
/// a `JSONDecoder` has already accepted as a JSON array.
enum JSONText {
    /// The ranges of `data` that hold each element of the array `data` is, in order, without
    /// the whitespace around them.
    static func arrayElements(of data: Data) -> [Range<Data.Index>] {
        data.withUnsafeBytes { buffer -> [Range<Int>] in
            let bytes = buffer.bindMemory(to: UInt8.self)
            var elements: [Range<Int>] = []
            var index = 0
            while index < bytes.count, bytes[index] != UInt8(ascii: "[") { index += 1 }
            index += 1
            var depth = 0
            var start: Int?
            var end = 0
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                    index += 1
                    continue
                case UInt8(ascii: "\""):
                    if start == nil { start = index }
                    index += 1
                    while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                        index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                    }
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    if start == nil { start = index }
                    depth += 1
                case UInt8(ascii: "]") where depth == 0:
                    if let start { elements.append(start..<end) }
                    return elements
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    depth -= 1
                case UInt8(ascii: ",") where depth == 0:
                    if let start { elements.append(start..<end) }
                    start = nil
                    index += 1
                    continue
                default:
                    if start == nil { start = index }
                }
                index += 1
                end = index
            }
            return elements
        }.map { (data.startIndex + $0.lowerBound)..<(data.startIndex + $0.upperBound) }
    }
}

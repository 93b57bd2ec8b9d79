import Foundation

/// Where values lie in a JSON text, so that each photo can be decoded from, and kept as, the
/// exact text the API sent, without building the whole document as values first.
///
/// Structural only: it follows strings, brackets and commas, and expects a document that a
/// `JSONDecoder` has already accepted. On anything else it stops early rather than trap.
public enum JSONSpans {
    /// The ranges of `data` that hold each element of the array `data` is, in order, without
    /// the whitespace around them.
    public static func arrayElements(of data: Data) -> [Range<Data.Index>] {
        scan(data) { scanner in
            var elements: [Range<Int>] = []
            guard var index = scanner.open(UInt8(ascii: "["), at: 0) else { return [] }
            while let start = scanner.nextItem(at: index, closing: UInt8(ascii: "]")) {
                let end = scanner.valueEnd(from: start)
                elements.append(start..<end)
                index = scanner.afterSeparator(end)
            }
            return elements
        }
    }

    /// The range of `data` that holds the value of the top-level object's member `name`, or
    /// nil when `data` is not an object or has no such member.
    public static func member(_ name: String, of data: Data) -> Range<Data.Index>? {
        scan(data) { $0.members(stoppingAt: name.utf8) }.last
    }

    /// The ranges of `data` that hold the values of the top-level object's members `names`, in
    /// their order (nil for a member it does not have), read in one pass that ends once each is
    /// found: where ``member(_:of:)`` for each would read the object again.
    public static func members(_ names: [String], of data: Data) -> [Range<Data.Index>?] {
        var found = [Range<Data.Index>?](repeating: nil, count: names.count)
        var missing = names.count
        data.withUnsafeBytes { raw in
            let scanner = Scanner(bytes: raw.bindMemory(to: UInt8.self))
            scanner.eachMember { name, value in
                if let index = names.indices.first(where: {
                    found[$0] == nil && scanner.isString(name, equalTo: names[$0].utf8)
                }) {
                    found[index] = (data.startIndex + value.lowerBound)..<(data.startIndex + value.upperBound)
                    missing -= 1
                }
                return missing > 0
            }
        }
        return found
    }

    /// The ranges of `data` that hold the name (a string literal) and the value of each member
    /// of the object `data` is, in order; none when it is not an object.
    public static func members(of data: Data) -> [(name: Range<Data.Index>, value: Range<Data.Index>)] {
        let spans = scan(data) { $0.members(stoppingAt: nil) }
        return stride(from: 0, to: spans.count - 1, by: 2).map { (spans[$0], spans[$0 + 1]) }
    }

    /// The string the JSON string literal `literal` spells; nil when it is not a string.
    public static func string(_ literal: Data) -> String? {
        guard literal.count >= 2, literal.first == UInt8(ascii: "\""), literal.last == UInt8(ascii: "\"") else {
            return nil
        }
        let content = literal.dropFirst().dropLast()
        guard content.contains(UInt8(ascii: "\\")) else { return String(decoding: content, as: UTF8.self) }
        return try? JSONDecoder().decode(String.self, from: literal)
    }

    /// `json` with the text of each edit in place of its span, and every other byte as it was:
    /// the way to rewrite a few members of a document the API sent without encoding it whole.
    /// The spans (from ``member(_:of:)`` and ``arrayElements(of:)``) may come in any order, and
    /// must not overlap.
    public static func replacing(_ edits: [(span: Range<Data.Index>, text: Data)], in json: Data) -> Data {
        var text = Data(capacity: json.count + edits.reduce(0) { $0 + $1.text.count })
        replacing(edits, in: json) { text.append($0.assumingMemoryBound(to: UInt8.self)) }
        return text
    }

    /// ``replacing(_:in:)``, its bytes given to `write` piece by piece, in order, rather than
    /// gathered: so that a list of photos is written into its answer's buffer once.
    public static func replacing(
        _ edits: [(span: Range<Data.Index>, text: Data)], in json: Data, write: (UnsafeRawBufferPointer) -> Void
    ) {
        json.withUnsafeBytes { whole in
            var copied = 0
            for edit in edits.sorted(by: { $0.span.lowerBound < $1.span.lowerBound }) {
                let start = edit.span.lowerBound - json.startIndex
                write(UnsafeRawBufferPointer(rebasing: whole[copied..<start]))
                edit.text.withUnsafeBytes(write)
                copied = edit.span.upperBound - json.startIndex
            }
            write(UnsafeRawBufferPointer(rebasing: whole[copied...]))
        }
    }

    /// Whether `byte` is whitespace between JSON's tokens.
    public static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    private static func scan(_ data: Data, _ body: (Scanner) -> [Range<Int>]) -> [Range<Data.Index>] {
        data.withUnsafeBytes { body(Scanner(bytes: $0.bindMemory(to: UInt8.self))) }
            .map { (data.startIndex + $0.lowerBound)..<(data.startIndex + $0.upperBound) }
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>

        func skippingSpace(_ index: Int) -> Int {
            var index = index
            while index < bytes.count, JSONSpans.isSpace(bytes[index]) { index += 1 }
            return index
        }

        /// After `byte` (and the space before it) at `index`, or nil when it is not there.
        func open(_ byte: UInt8, at index: Int) -> Int? {
            let index = skippingSpace(index)
            return index < bytes.count && bytes[index] == byte ? index + 1 : nil
        }

        /// Where the next element or member starts, or nil at `closing` or the end.
        func nextItem(at index: Int, closing: UInt8) -> Int? {
            let index = skippingSpace(index)
            return index < bytes.count && bytes[index] != closing ? index : nil
        }

        /// The name and value of each member of the object at the start, in turn; with
        /// `wanted`, only those of the first member so named, or none.
        func members(stoppingAt wanted: String.UTF8View?) -> [Range<Int>] {
            var spans: [Range<Int>] = []
            var found = false
            eachMember { name, value in
                if let wanted {
                    guard isString(name, equalTo: wanted) else { return true }
                    found = true
                }
                spans += [name, value]
                return !found
            }
            return wanted == nil || found ? spans : []
        }

        /// Calls `body` with the ranges of the name and the value of each member of the object at
        /// the start, in turn, for as long as it returns true.
        func eachMember(_ body: (_ name: Range<Int>, _ value: Range<Int>) -> Bool) {
            guard var index = open(UInt8(ascii: "{"), at: 0) else { return }
            while let keyStart = nextItem(at: index, closing: UInt8(ascii: "}")) {
                let keyEnd = valueEnd(from: keyStart)
                guard let valueStart = open(UInt8(ascii: ":"), at: keyEnd) else { return }
                let start = skippingSpace(valueStart)
                let end = valueEnd(from: start)
                guard body(keyStart..<keyEnd, start..<end) else { return }
                index = afterSeparator(end)
            }
        }

        /// After the comma that follows a value ending at `index`, if any.
        func afterSeparator(_ index: Int) -> Int {
            let index = skippingSpace(index)
            return index < bytes.count && bytes[index] == UInt8(ascii: ",") ? index + 1 : index
        }

        /// The end of the value that starts at `start`: a string, an array or object with all it
        /// holds, or a number or literal.
        func valueEnd(from start: Int) -> Int {
            guard start < bytes.count else { return start }
            switch bytes[start] {
            case UInt8(ascii: "\""):
                return stringEnd(from: start)
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                var depth = 0
                var index = start
                while index < bytes.count {
                    switch bytes[index] {
                    case UInt8(ascii: "\""):
                        index = stringEnd(from: index)
                        continue
                    case UInt8(ascii: "["), UInt8(ascii: "{"):
                        depth += 1
                    case UInt8(ascii: "]"), UInt8(ascii: "}"):
                        depth -= 1
                        if depth == 0 { return index + 1 }
                    default:
                        break
                    }
                    index += 1
                }
                return index
            default:
                var index = start
                while index < bytes.count, !JSONSpans.isSpace(bytes[index]),
                    bytes[index] != UInt8(ascii: ","), bytes[index] != UInt8(ascii: "]"),
                    bytes[index] != UInt8(ascii: "}")
                {
                    index += 1
                }
                return index
            }
        }

        /// After the closing quote of the string whose opening quote is at `start`.
        ///
        /// Most of a photo's text is strings (URLs above all), so the quotes are found by
        /// `memchr`, and a quote counts as closing when an even number of backslashes precede it.
        private func stringEnd(from start: Int) -> Int {
            guard let base = bytes.baseAddress else { return start }
            var index = start + 1
            while index < bytes.count {
                guard let found = memchr(base + index, Int32(UInt8(ascii: "\"")), bytes.count - index) else { break }
                let quote = base.distance(to: UnsafePointer(found.assumingMemoryBound(to: UInt8.self)))
                var backslashes = 0
                while quote - backslashes - 1 > start, bytes[quote - backslashes - 1] == UInt8(ascii: "\\") {
                    backslashes += 1
                }
                if backslashes.isMultiple(of: 2) { return quote + 1 }
                index = quote + 1
            }
            return bytes.count
        }

        /// Whether the string literal in `range` spells `wanted`, escapes decoded.
        func isString(_ range: Range<Int>, equalTo wanted: String.UTF8View) -> Bool {
            let literal = bytes[(range.lowerBound + 1)..<max(range.lowerBound + 1, range.upperBound - 1)]
            // An escape only lengthens a name: one shorter than `wanted` is another, and one as
            // long and without escapes is `wanted` byte for byte or not at all. Most members are
            // told apart here, by their length.
            if literal.count < wanted.count { return false }
            if literal.count == wanted.count, literal.elementsEqual(wanted) {
                return !literal.contains(UInt8(ascii: "\\"))
            }
            guard literal.contains(UInt8(ascii: "\\")) else { return false }
            let decoded = try? JSONDecoder().decode(String.self, from: Data(bytes[range]))
            return decoded.map { $0.utf8.elementsEqual(wanted) } ?? false
        }
    }
}

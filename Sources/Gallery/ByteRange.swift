/// One range of bytes a `Range` header asks for, as RFC 9110 §14.1.2 writes it: `bytes=a-b`,
/// `bytes=a-` or `bytes=-n`.
///
/// Only a single range in the `bytes` unit is understood. Several ranges, another unit or
/// anything not in the grammar parse to nil, and the gallery then ignores the header and sends
/// the whole image (RFC 9110 §14.2 lets a server ignore `Range`; it sends no
/// `multipart/byteranges`). The header is the client's: parsing never traps, whatever it holds.
enum ByteRange: Equatable, Sendable {
    /// `bytes=first-last` (`last` inclusive), or `bytes=first-` (to the end) when `last` is nil.
    case from(Int64, through: Int64?)
    /// `bytes=-length`: the last `length` bytes.
    case suffix(Int64)

    /// What a range selects of a representation of a given length.
    enum Selection: Equatable, Sendable {
        /// 206 Partial Content: these offsets.
        case part(Range<Int64>)
        /// 416 Range Not Satisfiable: a first byte at or past the end, or `bytes=-0`.
        case unsatisfiable
        /// 200 with everything: a suffix of an empty representation, which RFC 9110 calls
        /// satisfiable but a 206's `Content-Range: bytes first-last/0` cannot say.
        case whole
    }

    /// The range `header` (a `Range` field's value) asks for; nil when it is not one range in
    /// `bytes`, so must be ignored.
    ///
    /// The unit is case-insensitive. As in any list field, whitespace around the range and empty
    /// elements (`bytes=0-9,`) are allowed; none inside it. A number too large for an `Int64` is
    /// read as `Int64.max`: an offset that far is past the end of any image all the same.
    init?(_ header: String) {
        guard let equals = header.firstIndex(of: "="),
            header[..<equals].lowercased() == "bytes"
        else { return nil }
        let specs = header[header.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingOWS() }.filter { !$0.isEmpty }
        guard specs.count == 1, let dash = specs[0].firstIndex(of: "-") else { return nil }
        let first = specs[0][..<dash]
        let last = specs[0][specs[0].index(after: dash)...]
        if first.isEmpty {
            guard let length = Self.number(last) else { return nil }
            self = .suffix(length)
        } else {
            guard let start = Self.number(first) else { return nil }
            if last.isEmpty {
                self = .from(start, through: nil)
            } else {
                // RFC 9110 §14.1.1: a last-pos before its first-pos makes the range invalid.
                guard let end = Self.number(last), end >= start else { return nil }
                self = .from(start, through: end)
            }
        }
    }

    /// The range a GET asks for with its `Range` and `If-Range` fields (each field's values),
    /// for a representation whose strong entity tag is `etag`; nil when there is none to honour.
    ///
    /// Nil unless there is exactly one `Range` field holding one range (``init(_:)``). With
    /// `If-Range`, the range is honoured only if it is exactly `etag` (RFC 9110 §13.1.5's strong
    /// comparison): a weak tag never matches, nor does a date, since no `Last-Modified` is sent.
    static func requested(range: [String], ifRange: [String], etag: String) -> ByteRange? {
        guard range.count == 1, let requested = ByteRange(range[0]) else { return nil }
        guard ifRange.isEmpty else {
            return ifRange.count == 1 && ifRange[0].trimmingOWS() == etag ? requested : nil
        }
        return requested
    }

    /// What this range selects of a representation of `length` bytes (RFC 9110 §14.1.2): a last
    /// byte past the end is the end; a suffix longer than the representation is all of it.
    func selection(ofLength length: Int64) -> Selection {
        switch self {
        case .from(let first, let last):
            guard first < length else { return .unsatisfiable }
            let end = last.map { Swift.min($0, length - 1) } ?? length - 1
            return .part(first..<(end + 1))
        case .suffix(let count):
            guard count > 0 else { return .unsatisfiable }
            guard length > 0 else { return .whole }
            return .part((length - Swift.min(count, length))..<length)
        }
    }

    /// `digits` as a number when they are one or more ASCII digits and nothing else (no sign, no
    /// space); `Int64.max` when it would not fit.
    private static func number(_ digits: Substring) -> Int64? {
        guard !digits.isEmpty, digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        var value: Int64 = 0
        for digit in digits.utf8 {
            let (times10, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowedAgain) = times10.addingReportingOverflow(Int64(digit - 0x30))
            guard !overflowed, !overflowedAgain else { return .max }
            value = sum
        }
        return value
    }
}

/// The value of a `Content-Range` field (RFC 9110 §14.4).
enum ContentRange {
    /// `bytes first-last/length` for the offsets `part` of `length` bytes.
    static func part(_ part: Range<Int64>, of length: Int64) -> String {
        "bytes \(part.lowerBound)-\(part.upperBound - 1)/\(length)"
    }

    /// `bytes */length`: a 416's, saying how long the representation is.
    static func unsatisfied(length: Int64) -> String {
        "bytes */\(length)"
    }
}

extension Substring {
    /// Without the spaces and tabs HTTP calls optional whitespace (OWS) at either end.
    fileprivate func trimmingOWS() -> Substring {
        let isOWS: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isOWS($0) }), let end = lastIndex(where: { !isOWS($0) }) else {
            return self[endIndex...]
        }
        return self[start...end]
    }
}

extension String {
    /// Without the spaces and tabs HTTP calls optional whitespace (OWS) at either end.
    fileprivate func trimmingOWS() -> Substring {
        self[...].trimmingOWS()
    }
}

import Testing

@testable import Gallery

/// `Range` and `If-Range` as RFC 9110 §14 reads them, from what a client may send: every header
/// is untrusted, so none may trap.
@Suite struct ByteRangeTests {
    static let ranges: [(String, ByteRange)] = [
        ("bytes=0-499", .from(0, through: 499)),
        ("bytes=500-999", .from(500, through: 999)),
        ("bytes=9500-", .from(9_500, through: nil)),
        ("bytes=-500", .suffix(500)),
        ("bytes=-0", .suffix(0)),
        ("bytes=0-0", .from(0, through: 0)),
        ("bytes=5-5", .from(5, through: 5)),
        ("Bytes=1-2", .from(1, through: 2)),
        ("BYTES=1-2", .from(1, through: 2)),
        ("bytes= 1-2 ", .from(1, through: 2)),
        ("bytes=\t1-2", .from(1, through: 2)),
        ("bytes=1-2,", .from(1, through: 2)),
        ("bytes=, 1-2", .from(1, through: 2)),
        ("bytes=007-010", .from(7, through: 10)),
        // Past Int64: read as Int64.max, which is past the end of any image
        ("bytes=99999999999999999999-", .from(.max, through: nil)),
        ("bytes=0-99999999999999999999", .from(0, through: .max)),
        ("bytes=-99999999999999999999", .suffix(.max)),
        ("bytes=9223372036854775807-", .from(.max, through: nil)),
        ("bytes=9223372036854775808-", .from(.max, through: nil)),
    ]

    @Test(arguments: ranges)
    func aSingleRangeParses(_ header: String, _ expected: ByteRange) {
        #expect(ByteRange(header) == expected, "\(header)")
    }

    static let ignored: [String] = [
        "", "bytes", "bytes=", "bytes=,", "bytes=-", "bytes=--5", "bytes=5-3", "bytes=-5-10", "bytes=1-2-3",
        "bytes=0-1,5-6", "bytes=0-1, 5-6", "bytes=-1,-2", "items=0-5", "bytes 0-5", "bytes =0-5", "bytes=0 -5",
        "bytes=0- 5", "bytes=+5-6", "bytes=-+5", "bytes=-5-", "bytes=0x10-20", "bytes=1e3-", "bytes=a-b", "=0-5",
        "bytes==0-5", "bytes=٣-٤", "bytes=1-２", "bytes=\u{0}1-2", "bytes=1-2\u{301}", "bytes=-1-", "bytes=5-4",
        "bytes=99999999999999999999-1", "bytes=1-99999999999999999999-",
        "bytes=" + String(repeating: "9", count: 10_000),
        "bytes=" + String(repeating: "0-1,", count: 1_000),
    ]

    @Test(arguments: ignored)
    func anythingElseIsIgnored(_ header: String) {
        #expect(ByteRange(header) == nil, "\(header.prefix(60))")
    }

    /// (range, length, selected)
    static let selections: [(ByteRange, Int64, ByteRange.Selection)] = [
        (.from(0, through: 499), 10_000, .part(0..<500)),
        (.from(9_500, through: nil), 10_000, .part(9_500..<10_000)),
        (.from(9_999, through: nil), 10_000, .part(9_999..<10_000)),
        (.from(9_500, through: 20_000), 10_000, .part(9_500..<10_000)),
        (.from(0, through: .max), 10_000, .part(0..<10_000)),
        (.from(10_000, through: nil), 10_000, .unsatisfiable),
        (.from(10_000, through: 10_001), 10_000, .unsatisfiable),
        (.from(.max, through: nil), 10_000, .unsatisfiable),
        (.suffix(500), 10_000, .part(9_500..<10_000)),
        (.suffix(10_000), 10_000, .part(0..<10_000)),
        (.suffix(20_000), 10_000, .part(0..<10_000)),
        (.suffix(.max), 10_000, .part(0..<10_000)),
        (.suffix(0), 10_000, .unsatisfiable),
        (.suffix(1), 1, .part(0..<1)),
        // RFC 9110 §14.1.2: of an empty representation only a suffix is satisfiable, and no
        // Content-Range can say an empty part: the whole (empty) image is sent
        (.from(0, through: nil), 0, .unsatisfiable),
        (.from(0, through: 0), 0, .unsatisfiable),
        (.suffix(5), 0, .whole),
        (.suffix(0), 0, .unsatisfiable),
    ]

    @Test(arguments: selections)
    func aRangeSelectsBytesOfARepresentation(_ range: ByteRange, _ length: Int64, _ expected: ByteRange.Selection) {
        #expect(range.selection(ofLength: length) == expected, "\(range) of \(length)")
    }

    static let etag = "\"2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824\""

    /// (Range fields, If-Range fields, honoured)
    static let conditions: [([String], [String], Bool)] = [
        (["bytes=0-9"], [], true),
        (["bytes=0-9"], [etag], true),
        (["bytes=0-9"], [" \(etag) "], true),
        (["bytes=0-9"], ["W/\(etag)"], false),
        (["bytes=0-9"], ["\"0000\""], false),
        (["bytes=0-9"], ["Tue, 15 Nov 1994 08:12:31 GMT"], false),
        (["bytes=0-9"], ["*"], false),
        (["bytes=0-9"], ["\(etag), \(etag)"], false),
        (["bytes=0-9"], [etag, etag], false),
        (["bytes=0-9"], [""], false),
        (["bytes=0-9", "bytes=0-9"], [], false),
        ([], [etag], false),
        (["bytes=0-1,5-6"], [etag], false),
    ]

    @Test(arguments: conditions)
    func ifRangeHonoursTheRangeOnlyForTheStrongETag(_ range: [String], _ ifRange: [String], _ honoured: Bool) {
        let requested = ByteRange.requested(range: range, ifRange: ifRange, etag: Self.etag)
        #expect(requested == (honoured ? .from(0, through: 9) : nil), "Range: \(range), If-Range: \(ifRange)")
    }

    @Test func contentRangeNamesTheFirstAndLastByteAndTheLength() {
        #expect(ContentRange.part(0..<500, of: 10_000) == "bytes 0-499/10000")
        #expect(ContentRange.part(9_999..<10_000, of: 10_000) == "bytes 9999-9999/10000")
        #expect(ContentRange.unsatisfied(length: 0) == "bytes */0")
    }
}

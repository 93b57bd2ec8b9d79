/// Lowercase hexadecimal text of bytes, two digits a byte: how photosync writes a SHA-256 digest
/// (a download's, a stored image's, an exported file's), and compares one.
///
/// `String(format: "%02x")` goes through NSString on Linux and cost a tenth of a download's CPU.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    public static func string<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

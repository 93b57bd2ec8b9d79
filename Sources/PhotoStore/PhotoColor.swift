import Foundation

/// The colours Unsplash's search filters by (`color=`), judged from a photo's `color`: the hex of
/// its dominant colour, as the API sends it ("#0c2626").
///
/// Unsplash judges the whole image; the mirror has only that one colour, so a photo matches
/// when its dominant colour does. `black_and_white` is a colour without hue, whatever its
/// lightness; `black` and `white` are the darkest and lightest; every other name is a hue
/// that is neither.
public enum PhotoColor: String, CaseIterable, Sendable {
    case blackAndWhite = "black_and_white"
    case black, white, yellow, orange, red, purple, magenta, green, teal, blue

    /// Whether a photo whose dominant colour is `hex` ("#RRGGBB") has this colour; a text that
    /// is not such a colour has none.
    public func matches(hex: String) -> Bool {
        guard let (red, green, blue) = Self.channels(hex) else { return false }
        let brightest = max(red, green, blue)
        let darkest = min(red, green, blue)
        let chroma = brightest - darkest
        switch self {
        case .blackAndWhite: return chroma < Self.greyChroma
        case .black: return brightest < Self.darkBrightness
        case .white: return darkest > Self.lightDarkness
        default:
            guard chroma >= Self.greyChroma, brightest >= Self.darkBrightness, darkest <= Self.lightDarkness else {
                return false
            }
            return Self.hueName(red, green, blue, brightest: brightest, chroma: chroma) == self
        }
    }

    /// Below this spread between the brightest and darkest channel (of 1), a colour is grey.
    static let greyChroma = 0.12
    /// Below this brightest channel a colour is black.
    static let darkBrightness = 0.2
    /// Above this darkest channel a colour is white.
    static let lightDarkness = 0.85

    /// The name of the hue of a colour that has one, by the hue's angle on the colour wheel.
    private static func hueName(
        _ red: Double, _ green: Double, _ blue: Double, brightest: Double, chroma: Double
    ) -> PhotoColor {
        var hue: Double =
            if brightest == red {
                (green - blue) / chroma
            } else if brightest == green {
                (blue - red) / chroma + 2
            } else {
                (red - green) / chroma + 4
            }
        hue = (hue * 60).truncatingRemainder(dividingBy: 360)
        if hue < 0 { hue += 360 }
        let names: [(below: Double, name: PhotoColor)] = [
            (15, .red), (45, .orange), (70, .yellow), (160, .green), (195, .teal), (255, .blue), (290, .purple),
            (340, .magenta), (360, .red),
        ]
        return names.first { hue < $0.below }?.name ?? .red
    }

    /// The channels of "#RRGGBB" (the "#" optional), each of 1; nil for any other text, a sign
    /// included ("+abcde", which `UInt32(_:radix:)` would read).
    private static func channels(_ hex: String) -> (Double, Double, Double)? {
        let digits = hex.utf8.first == UInt8(ascii: "#") ? hex.utf8.dropFirst() : hex.utf8[...]
        guard digits.count == 6 else { return nil }
        var value: UInt32 = 0
        for byte in digits {
            let nibble: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(nibble)
        }
        return (Double(value >> 16 & 0xFF) / 255, Double(value >> 8 & 0xFF) / 255, Double(value & 0xFF) / 255)
    }
}

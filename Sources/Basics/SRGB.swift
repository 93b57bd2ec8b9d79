import Foundation

/// The sRGB transfer function: a colour byte (0-255, as images and `#rrggbb` hold it) as
/// linear light (0-1), and back. BlurHash averages in linear light: the gallery decodes a
/// photo's `blur_hash` with it, the stub encodes its pictures' with it.
public enum SRGB {
    /// `byte` (0-255) in linear light, 0-1.
    public static func linear(_ byte: Int) -> Double {
        let fraction = Double(byte) / 255
        return fraction <= 0.040_45 ? fraction / 12.92 : pow((fraction + 0.055) / 1.055, 2.4)
    }

    /// Linear light `value`, clamped to 0-1, as the nearest byte.
    public static func byte(_ value: Double) -> UInt8 {
        let clamped = min(max(value, 0), 1)
        let encoded = clamped <= 0.003_130_8 ? clamped * 12.92 : 1.055 * pow(clamped, 1 / 2.4) - 0.055
        return UInt8((encoded * 255).rounded())
    }
}

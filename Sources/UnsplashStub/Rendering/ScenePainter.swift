import Foundation

/// Paints what a photo's `alt_description` says (``PhotoLook``) the way a photograph shows it:
/// the place behind, the subject in front, the light of an hour of the day, a lens's softness
/// and film grain. Where things stand, how large, at what hour and in which tints is drawn from
/// the photo's own generator, so no two photos are the same picture, even of the same words.
struct ScenePainter {
    let look: PhotoLook
    var generator: SplitMix64
    let hour: Hour
    /// Where the sky meets the ground, from the top (units of the picture's height).
    let horizon: Float
    /// Where the subject stands across the picture, 0...1 of its width.
    let across: Float
    let size: Float
    /// Where the light comes from.
    let sun: SIMD2<Float>
    /// A tint every colour of the picture leans to a little.
    let tint: Paint

    init(look: PhotoLook, seed: UInt64, name: String) {
        self.look = look
        var generator = Determinism.generator("picture:\(seed):\(name)")
        switch look.place {
        case .nightSky: hour = .night
        case .rain: hour = .overcast
        default: hour = generator.pick([.day, .day, .golden, .dusk, .overcast, .night])
        }
        horizon = 0.32 + Float(generator.unit()) * 0.36
        across = 0.22 + Float(generator.unit()) * 0.56
        size = (0.65 + Float(generator.unit()) * 0.7) * (look.relation == .seenFrom ? 0.55 : 1)
        sun = SIMD2(Float(generator.unit()), horizon * Float(0.2 + generator.unit() * 0.6))
        tint = Paint(
            Float(0.84 + generator.unit() * 0.32), Float(0.84 + generator.unit() * 0.32),
            Float(0.84 + generator.unit() * 0.32))
        self.generator = generator
    }

    /// The picture at `width` x `height` pixels. The same scene at any size, but for the grain.
    mutating func paint(width: Int, height: Int) -> Canvas {
        var canvas = Canvas(width: width, height: height)
        paintPlace(on: &canvas)
        paintSubject(on: &canvas)
        paintLight(on: &canvas)
        canvas.soften()
        var grain = generator
        canvas.grain(strength: 0.035, using: &grain)
        return canvas
    }

    // MARK: - The hour

    enum Hour {
        case day, golden, dusk, overcast, night

        /// The sky from its top to the horizon.
        var sky: (top: Paint, horizon: Paint) {
            switch self {
            case .day: (Paint(hex: 0x2F6D_B5), Paint(hex: 0xB3D3_EC))
            case .golden: (Paint(hex: 0x3C4F_86), Paint(hex: 0xF2B4_6E))
            case .dusk: (Paint(hex: 0x1B20_45), Paint(hex: 0xCF72_7C))
            case .overcast: (Paint(hex: 0x6F78_83), Paint(hex: 0xC3C7_CC))
            case .night: (Paint(hex: 0x0306_0E), Paint(hex: 0x1A28_48))
            }
        }

        /// What the light does to the lit side of things.
        var light: Paint {
            switch self {
            case .day: Paint(1.04, 1.02, 0.98)
            case .golden: Paint(1.12, 0.98, 0.8)
            case .dusk: Paint(0.9, 0.78, 0.82)
            case .overcast: Paint(0.92, 0.94, 0.97)
            case .night: Paint(0.42, 0.46, 0.62)
            }
        }
    }

    func tinted(_ hex: UInt32) -> Paint {
        Paint(hex: hex) * tint
    }

    // MARK: - Light

    private func paintLight(on canvas: inout Canvas) {
        let (sunX, sunY) = (sun.x * canvas.aspect, sun.y)
        canvas.light(hour.light, ambient: 0.82) { x, y in
            let (dx, dy) = (x - sunX, y - sunY)
            return 0.1 + 0.3 * exp(-(dx * dx + dy * dy) * 3)
        }
    }
}

import Foundation

/// The subjects a photo's `alt_description` names, painted in front of its place: as
/// silhouettes of a few shapes each, standing where the scene's generator put them.
extension ScenePainter {
    /// Where the subject's own coordinates land: `x` to the right and `y` up from its foot, in
    /// units of its height, mirrored below its foot when it is reflected.
    private struct Stage {
        let foot: SIMD2<Float>
        let scale: Float
        let mirrored: Bool

        func point(_ x: Float, _ y: Float) -> SIMD2<Float> {
            SIMD2(foot.x + x * scale, foot.y + (mirrored ? y : -y) * scale)
        }

        func points(_ list: [(Float, Float)]) -> [SIMD2<Float>] {
            list.map { point($0.0, $0.1) }
        }
    }

    mutating func paintSubject(on canvas: inout Canvas) {
        let width = canvas.aspect
        let footY: Float =
            switch look.place {
            case .woodenTable, .brickWall, .window: look.relation == .under ? 0.97 : 0.9
            case .nightSky, .mountain: horizon + 0.12
            default: look.relation == .under ? 0.95 : min(0.92, horizon + 0.2 + size * 0.1)
            }
        let stage = Stage(foot: SIMD2(width * across, footY), scale: 0.5 * size, mirrored: false)
        // The reflection draws what the subject drew: the same windows, the same flowers.
        var reflected = self
        paintSubject(stage, on: &canvas, opacity: 1)
        if look.relation == .reflectedIn {
            reflected.paintSubject(
                Stage(foot: stage.foot, scale: stage.scale, mirrored: true), on: &canvas, opacity: 0.3)
        }
    }

    private mutating func paintSubject(_ stage: Stage, on canvas: inout Canvas, opacity: Float) {
        switch look.subject {
        case .redCar: paintRedCar(stage, on: &canvas, opacity: opacity)
        case .womanInYellowCoat: person(stage, coat: tinted(0xE2_B21E), on: &canvas, opacity: opacity)
        case .man:
            let coat = tinted(generator.pick([0x2D_3340, 0x4A_3B2E, 0x1E_2A24]))
            person(stage, coat: coat, on: &canvas, opacity: opacity)
        case .blackDog: paintBlackDog(stage, on: &canvas, opacity: opacity)
        case .sleepingCat: paintSleepingCat(stage, on: &canvas, opacity: opacity)
        case .mountainRange: paintMountainRange(stage, on: &canvas, opacity: opacity)
        case .citySkyline: paintCitySkyline(stage, on: &canvas, opacity: opacity)
        case .ramen: paintRamen(stage, on: &canvas, opacity: opacity)
        case .cabin: paintCabin(stage, on: &canvas, opacity: opacity)
        case .sailboat: paintSailboat(stage, on: &canvas, opacity: opacity)
        case .sunflowers: paintSunflowers(stage, on: &canvas, opacity: opacity)
        case .lighthouse: paintLighthouse(stage, on: &canvas, opacity: opacity)
        case .bicycle: paintBicycle(stage, on: &canvas, opacity: opacity)
        case .coffee: paintCoffee(stage, on: &canvas, opacity: opacity)
        case .snowyForest: paintSnowyForest(stage, on: &canvas, opacity: opacity)
        case .desertRoad: paintDesertRoad(stage, on: &canvas, opacity: opacity)
        }
    }

    /// A red car side on: body, cabin, windows and two wheels.
    private func paintRedCar(_ stage: Stage, on canvas: inout Canvas, opacity: Float) {
        let s = stage.scale
        let body = tinted(0xB3_211E)
        canvas.polygon(
            stage.points([(-0.5, 0.06), (0.5, 0.06), (0.52, 0.2), (-0.5, 0.22)]), body, opacity: opacity)
        canvas.polygon(
            stage.points([(-0.3, 0.21), (0.25, 0.21), (0.15, 0.36), (-0.22, 0.36)]), body, opacity: opacity)
        canvas.polygon(
            stage.points([(-0.25, 0.22), (0.2, 0.22), (0.12, 0.33), (-0.19, 0.33)]), Paint(0.25, 0.3, 0.36),
            opacity: opacity)
        for x: Float in [-0.3, 0.3] {
            let wheel = stage.point(x, 0.07)
            canvas.ellipse(
                x: wheel.x, y: wheel.y, rx: 0.08 * s, ry: 0.08 * s, Paint(0.05, 0.05, 0.05), opacity: opacity)
            canvas.ellipse(
                x: wheel.x, y: wheel.y, rx: 0.035 * s, ry: 0.035 * s, Paint(0.6, 0.6, 0.62), opacity: opacity)
        }
    }

    /// A black dog standing: four legs, body, head, an ear and its tail up.
    private func paintBlackDog(_ stage: Stage, on canvas: inout Canvas, opacity: Float) {
        let s = stage.scale
        let fur = Paint(0.07, 0.07, 0.075)
        for x: Float in [-0.2, -0.12, 0.14, 0.22] {
            canvas.line(
                from: stage.point(x, 0), to: stage.point(x, 0.2), thickness: 0.045 * s, fur, opacity: opacity)
        }
        let body = stage.point(0, 0.26)
        canvas.ellipse(x: body.x, y: body.y, rx: 0.3 * s, ry: 0.11 * s, fur, opacity: opacity)
        let head = stage.point(0.33, 0.4)
        canvas.ellipse(x: head.x, y: head.y, rx: 0.1 * s, ry: 0.09 * s, fur, opacity: opacity)
        canvas.polygon(stage.points([(0.27, 0.46), (0.31, 0.56), (0.35, 0.46)]), fur, opacity: opacity)
        canvas.line(
            from: stage.point(-0.28, 0.3), to: stage.point(-0.42, 0.42), thickness: 0.035 * s, fur, opacity: opacity
        )
    }

    /// A cat of one fur or another curled up asleep: body, head, two ears and the tail.
    private mutating func paintSleepingCat(_ stage: Stage, on canvas: inout Canvas, opacity: Float) {
        let s = stage.scale
        let fur = tinted(generator.pick([0xC0_7840, 0x80_7F7C, 0xE8_E0D4]))
        let body = stage.point(0, 0.12)
        canvas.ellipse(x: body.x, y: body.y, rx: 0.3 * s, ry: 0.13 * s, fur, opacity: opacity)
        let head = stage.point(0.22, 0.14)
        canvas.ellipse(x: head.x, y: head.y, rx: 0.1 * s, ry: 0.085 * s, fur * 0.92, opacity: opacity)
        canvas.polygon(stage.points([(0.15, 0.2), (0.17, 0.29), (0.22, 0.21)]), fur * 0.9, opacity: opacity)
        canvas.polygon(stage.points([(0.24, 0.21), (0.28, 0.29), (0.31, 0.19)]), fur * 0.9, opacity: opacity)
        canvas.line(
            from: stage.point(-0.28, 0.04), to: stage.point(0.1, 0.0), thickness: 0.05 * s, fur * 0.85,
            opacity: opacity)
    }

    /// Three ranges across the whole picture, one before the other, the farther paler in the haze.
    private mutating func paintMountainRange(_ stage: Stage, on canvas: inout Canvas, opacity: Float) {
        let s = stage.scale
        let width = canvas.aspect
        for layer in 0..<3 {
            let depth = Float(layer) / 3
            var outline: [SIMD2<Float>] = [SIMD2(0, stage.foot.y)]
            for index in 0...6 {
                let x = width * Float(index) / 6
                let peak = (0.25 + Float(generator.unit()) * 0.4) * (1 - depth * 0.4) * s
                outline.append(SIMD2(x, stage.foot.y - peak - depth * 0.05 * (stage.mirrored ? -1 : 1)))
            }
            outline.append(SIMD2(width, stage.foot.y))
            if stage.mirrored { outline = outline.map { SIMD2($0.x, 2 * stage.foot.y - $0.y) } }
            let color = tinted(0x35_4258).mixed(with: hour.sky.horizon, 0.55 - depth * 0.45)
            canvas.polygon(outline, color, opacity: opacity)
        }
    }

    /// Buildings of one height and colour or another side by side across the picture, their
    /// windows lit more at dusk and at night.
    private mutating func paintCitySkyline(_ stage: Stage, on canvas: inout Canvas, opacity: Float) {
        let s = stage.scale
        let width = canvas.aspect
        var x: Float = 0
        while x < width {
            let buildingWidth = Float(0.05 + generator.unit() * 0.09)
            let tall = Float(0.15 + generator.unit() * 0.55) * s * 1.4
            let top = stage.mirrored ? stage.foot.y + tall : stage.foot.y - tall
            let color = tinted(generator.pick([0x2B_3040, 0x3A_3F4D, 0x22_2630, 0x4A_4E58]))
            canvas.polygon(
                [
                    SIMD2(x, stage.foot.y), SIMD2(x + buildingWidth, stage.foot.y), SIMD2(x + buildingWidth, top),
                    SIMD2(x, top),
                ],
                color, opacity: opacity)
            let lit = hour == .night || hour == .dusk ? Float(0.6) : 0.15
            var y = min(top, stage.foot.y) + 0.02
            while y < max(top, stage.foot.y) - 0.02 {
                var windowX = x + 0.012
                while windowX < x + buildingWidth - 0.015 {
                    if Float(generator.unit()) < lit {
                        canvas.polygon(
                            [
                                SIMD2(windowX, y), SIMD2(windowX + 0.008, y), SIMD2(windowX + 0.008, y + 0.012),
                                SIMD2(windowX, y + 0.012),
                            ],
                            Paint(1, 0.85, 0.55), opacity: opacity * 0.9)
                    }
                    windowX += 0.018
                }
                y += 0.026
            }
            x += buildingWidth + 0.004
        }
    }

    /// A bowl of ramen: broth, noodles, half an egg and a few green leaves.
    private mutating func paintRamen(_ stage: Stage, on canvas: inout Canvas, opacity: Float) {
        let s = stage.scale
        let bowl = stage.point(0, 0.14)
        canvas.ellipse(
            x: bowl.x, y: bowl.y + 0.02 * s, rx: 0.36 * s, ry: 0.17 * s, tinted(0x2A_1A18), opacity: opacity)
        canvas.ellipse(
            x: bowl.x, y: bowl.y - 0.04 * s, rx: 0.34 * s, ry: 0.12 * s, tinted(0xD9_A35A), opacity: opacity)
        for _ in 0..<14 {
            let a = stage.point(Float(generator.unit() - 0.5) * 0.5, 0.16 + Float(generator.unit()) * 0.06)
            canvas.line(
                from: a, to: a + SIMD2(Float(generator.unit() - 0.5) * 0.12 * s, 0.01 * s), thickness: 0.012 * s,
                tinted(0xF2_DC9A), opacity: opacity)
        }
        let egg = stage.point(0.12, 0.2)
        canvas.ellipse(x: egg.x, y: egg.y, rx: 0.07 * s, ry: 0.045 * s, Paint(0.97, 0.95, 0.9), opacity: opacity)
        canvas.ellipse(x: egg.x, y: egg.y, rx: 0.035 * s, ry: 0.025 * s, tinted(0xF0_9A20), opacity: opacity)
        for _ in 0..<6 {
            let leaf = stage.point(Float(generator.unit() - 0.5) * 0.4, 0.16 + Float(generator.unit()) * 0.05)
            canvas.ellipse(x: leaf.x, y: leaf.y, rx: 0.018 * s, ry: 0.01 * s, tinted(0x4C_9A3A), opacity: opacity)
        }
    }

    /// A wooden cabin: walls, roof, chimney, a lit window and a door.
    private func paintCabin(_ stage: Stage, on canvas: inout Canvas, opacity: Float) {
        let wall = tinted(0x6B_4226)
        canvas.polygon(stage.points([(-0.3, 0), (0.3, 0), (0.3, 0.3), (-0.3, 0.3)]), wall, opacity: opacity)
        canvas.polygon(stage.points([(-0.38, 0.28), (0.38, 0.28), (0, 0.55)]), tinted(0x3B_2A20), opacity: opacity)
        canvas.polygon(
            stage.points([(0.12, 0.38), (0.2, 0.38), (0.2, 0.58), (0.12, 0.58)]), tinted(0x3A_3430),
            opacity: opacity)
        canvas.polygon(
            stage.points([(-0.2, 0.1), (-0.06, 0.1), (-0.06, 0.2), (-0.2, 0.2)]), Paint(1, 0.8, 0.45),
            opacity: opacity)
        canvas.polygon(
            stage.points([(0.05, 0), (0.15, 0), (0.15, 0.2), (0.05, 0.2)]), tinted(0x3A_2416), opacity: opacity)
    }

    /// A small sailboat: hull, mast, mainsail and jib.
    private func paintSailboat(_ stage: Stage, on canvas: inout Canvas, opacity: Float) {
        let s = stage.scale
        canvas.polygon(
            stage.points([(-0.3, 0.06), (0.3, 0.06), (0.22, 0), (-0.24, 0)]), tinted(0x1E_2A40), opacity: opacity)
        canvas.line(
            from: stage.point(0, 0.06), to: stage.point(0, 0.7), thickness: 0.012 * s, Paint(0.3, 0.3, 0.3),
            opacity: opacity)
        canvas.polygon(
            stage.points([(0.01, 0.1), (0.01, 0.68), (0.26, 0.1)]), Paint(0.95, 0.94, 0.9), opacity: opacity)
        canvas.polygon(
            stage.points([(-0.01, 0.12), (-0.01, 0.55), (-0.2, 0.12)]), Paint(0.9, 0.88, 0.84), opacity: opacity)
    }

    /// A field of sunflowers from the horizon to the bottom of the picture, larger nearer.
    private mutating func paintSunflowers(_ stage: Stage, on canvas: inout Canvas, opacity: Float) {
        let width = canvas.aspect
        for _ in 0..<Int(70 * width) {
            let depth = Float(generator.unit())
            let x = Float(generator.unit()) * width
            let y = horizon + 0.02 + depth * depth * (1.05 - horizon)
            let radius = 0.008 + depth * depth * 0.05
            canvas.line(
                from: SIMD2(x, y), to: SIMD2(x, y + radius * 3), thickness: radius * 0.3, tinted(0x3E_6B2A),
                opacity: opacity)
            canvas.ellipse(x: x, y: y, rx: radius, ry: radius * 0.9, tinted(0xF2_C21B), opacity: opacity)
            canvas.ellipse(x: x, y: y, rx: radius * 0.45, ry: radius * 0.4, tinted(0x4A_2C12), opacity: opacity)
        }
    }

    /// A lighthouse on its rock, in white and red bands, its lamp brighter at dusk and at night.
    private func paintLighthouse(_ stage: Stage, on canvas: inout Canvas, opacity: Float) {
        let s = stage.scale
        canvas.polygon(
            stage.points([(-0.35, 0), (0.35, 0), (0.2, 0.12), (-0.25, 0.1)]), tinted(0x3A_3633), opacity: opacity)
        for band in 0..<5 {
            let (low, high) = (0.1 + Float(band) * 0.11, 0.21 + Float(band) * 0.11)
            let (lowHalf, highHalf) = (0.1 - low * 0.06, 0.1 - high * 0.06)
            canvas.polygon(
                stage.points([(-lowHalf, low), (lowHalf, low), (highHalf, high), (-highHalf, high)]),
                band % 2 == 0 ? Paint(0.93, 0.92, 0.9) : tinted(0xB8_2A22), opacity: opacity)
        }
        canvas.polygon(
            stage.points([(-0.07, 0.65), (0.07, 0.65), (0.07, 0.72), (-0.07, 0.72)]), Paint(0.1, 0.1, 0.1),
            opacity: opacity)
        let lamp = stage.point(0, 0.69)
        canvas.ellipse(
            x: lamp.x, y: lamp.y, rx: 0.16 * s, ry: 0.1 * s, Paint(1, 0.9, 0.6),
            opacity: opacity * (hour == .night || hour == .dusk ? 0.8 : 0.35), softness: 0.08 * s)
    }

    /// An old bicycle: two wheels, the frame of one colour or another, and a saddle.
    private mutating func paintBicycle(_ stage: Stage, on canvas: inout Canvas, opacity: Float) {
        let s = stage.scale
        let frame = tinted(generator.pick([0x1F_4E79, 0x7A_2020, 0x2E_4A2E]))
        for x: Float in [-0.28, 0.28] {
            let wheel = stage.point(x, 0.16)
            canvas.ring(x: wheel.x, y: wheel.y, radius: 0.15 * s, thickness: 0.018 * s, Paint(0.08, 0.08, 0.08))
        }
        let (back, front, seat, bar, crank) = (
            stage.point(-0.28, 0.16), stage.point(0.28, 0.16), stage.point(-0.08, 0.4), stage.point(0.2, 0.42),
            stage.point(0, 0.16)
        )
        for (a, b) in [(back, seat), (seat, crank), (crank, back), (seat, bar), (bar, front), (crank, bar)] {
            canvas.line(from: a, to: b, thickness: 0.018 * s, frame, opacity: opacity)
        }
        canvas.line(
            from: seat, to: seat + SIMD2(0.06 * s, 0), thickness: 0.025 * s, Paint(0.1, 0.08, 0.06),
            opacity: opacity)
    }

    /// A cup of coffee on its saucer, with a handle, crema and a little steam.
    private func paintCoffee(_ stage: Stage, on canvas: inout Canvas, opacity: Float) {
        let s = stage.scale
        let saucer = stage.point(0, 0.03)
        canvas.ellipse(
            x: saucer.x, y: saucer.y, rx: 0.3 * s, ry: 0.07 * s, Paint(0.92, 0.91, 0.88), opacity: opacity)
        canvas.polygon(
            stage.points([(-0.16, 0.05), (0.16, 0.05), (0.19, 0.3), (-0.19, 0.3)]), Paint(0.95, 0.94, 0.91),
            opacity: opacity)
        let handle = stage.point(0.22, 0.2)
        canvas.ring(x: handle.x, y: handle.y, radius: 0.05 * s, thickness: 0.025 * s, Paint(0.93, 0.92, 0.89))
        let top = stage.point(0, 0.3)
        canvas.ellipse(x: top.x, y: top.y, rx: 0.19 * s, ry: 0.05 * s, tinted(0x3B_2414), opacity: opacity)
        canvas.ellipse(x: top.x, y: top.y, rx: 0.1 * s, ry: 0.025 * s, tinted(0xB0_7A4A), opacity: opacity * 0.8)
        for x: Float in [-0.06, 0.04] {
            canvas.line(
                from: stage.point(x, 0.36), to: stage.point(x + 0.04, 0.6), thickness: 0.02 * s, Paint(1, 1, 1),
                opacity: opacity * 0.2)
        }
    }

    /// Snowy ground and fir trees with snow on their tops, larger nearer, paler farther.
    private mutating func paintSnowyForest(_ stage: Stage, on canvas: inout Canvas, opacity: Float) {
        let width = canvas.aspect
        canvas.gradient(top: horizon, bottom: 1, [(0, Paint(0.86, 0.88, 0.92)), (1, Paint(0.95, 0.96, 0.98))])
        for _ in 0..<Int(40 * width) {
            let depth = Float(generator.unit())
            let x = Float(generator.unit()) * width
            let foot = horizon + 0.01 + depth * depth * (1 - horizon)
            let tall = 0.06 + depth * depth * 0.5
            let green = tinted(0x1F_3A2A).mixed(with: hour.sky.horizon, 0.5 * (1 - depth))
            canvas.polygon(
                [SIMD2(x - tall * 0.3, foot), SIMD2(x + tall * 0.3, foot), SIMD2(x, foot - tall)], green,
                opacity: opacity)
            canvas.polygon(
                [
                    SIMD2(x - tall * 0.12, foot - tall * 0.6), SIMD2(x + tall * 0.12, foot - tall * 0.6),
                    SIMD2(x, foot - tall),
                ],
                Paint(0.92, 0.94, 0.97), opacity: opacity * 0.85)
        }
    }

    /// Sand, a road to the horizon with its centre line, and two mesas far away.
    private mutating func paintDesertRoad(_ stage: Stage, on canvas: inout Canvas, opacity: Float) {
        let width = canvas.aspect
        canvas.gradient(top: horizon, bottom: 1, [(0, tinted(0xD8_B07A)), (1, tinted(0xB3_7F48))])
        let vanishing = SIMD2(width * across, horizon)
        canvas.polygon(
            [SIMD2(width * across - 0.6, 1), SIMD2(width * across + 0.6, 1), vanishing], tinted(0x3A_3A3C),
            opacity: opacity)
        var t: Float = 0.05
        while t < 1 {
            let y = horizon + t * t * (1 - horizon)
            let next = horizon + (t + 0.04) * (t + 0.04) * (1 - horizon)
            canvas.line(
                from: SIMD2(vanishing.x, y), to: SIMD2(vanishing.x, next), thickness: 0.004 + t * 0.012,
                tinted(0xE8_C84A), opacity: opacity)
            t += 0.1
        }
        for _ in 0..<2 {
            let x = Float(generator.unit()) * width
            let wide = Float(0.15 + generator.unit() * 0.2)
            canvas.polygon(
                [
                    SIMD2(x - wide, horizon), SIMD2(x - wide * 0.7, horizon - 0.08),
                    SIMD2(x + wide * 0.7, horizon - 0.08), SIMD2(x + wide, horizon),
                ],
                tinted(0xA0_5A35).mixed(with: hour.sky.horizon, 0.3), opacity: opacity)
        }
    }
    private mutating func person(_ stage: Stage, coat: Paint, on canvas: inout Canvas, opacity: Float) {
        let s = stage.scale
        let trousers = tinted(generator.pick([0x1E_1E24, 0x2F_3A52, 0x4A_4038]))
        canvas.line(
            from: stage.point(-0.05, 0), to: stage.point(-0.04, 0.4), thickness: 0.06 * s, trousers, opacity: opacity)
        canvas.line(
            from: stage.point(0.05, 0), to: stage.point(0.04, 0.4), thickness: 0.06 * s, trousers, opacity: opacity)
        canvas.polygon(stage.points([(-0.14, 0.3), (0.14, 0.3), (0.11, 0.78), (-0.11, 0.78)]), coat, opacity: opacity)
        canvas.line(
            from: stage.point(-0.12, 0.74), to: stage.point(-0.17, 0.42), thickness: 0.05 * s, coat * 0.9,
            opacity: opacity)
        canvas.line(
            from: stage.point(0.12, 0.74), to: stage.point(0.17, 0.42), thickness: 0.05 * s, coat * 0.9,
            opacity: opacity)
        let head = stage.point(0, 0.88)
        canvas.ellipse(
            x: head.x, y: head.y, rx: 0.075 * s, ry: 0.09 * s,
            tinted(generator.pick([0xE0_B090, 0xA8_7048, 0x6A_4028])), opacity: opacity)
        canvas.ellipse(
            x: head.x, y: head.y - 0.05 * s * (stage.mirrored ? -1 : 1), rx: 0.08 * s, ry: 0.05 * s,
            tinted(generator.pick([0x2A_1A10, 0x5A_3A20, 0x1A_1A1A])), opacity: opacity)
    }
}

import Foundation

/// The places a photo's `alt_description` names, painted behind its subject: skies by the
/// hour, water, walls, a table, a street, a window.
extension ScenePainter {
    mutating func paintPlace(on canvas: inout Canvas) {
        switch look.place {
        case .lake: paintLake(on: &canvas)
        case .bridge:
            paintLake(on: &canvas)
            bridge(on: &canvas)
        case .brickWall: paintBrickWall(on: &canvas)
        case .ocean: paintOcean(on: &canvas)
        case .busyStreet: paintBusyStreet(on: &canvas)
        case .mountain: paintMountain(on: &canvas)
        case .nightSky: paintNightSky(on: &canvas)
        case .woodenTable: paintWoodenTable(on: &canvas)
        case .window: paintWindow(on: &canvas)
        case .rain: paintRain(on: &canvas)
        }
    }

    /// The sky of the hour from the top of the picture (0) to the horizon (1), in the picture's tint.
    private var tintedSky: [(Float, Paint)] {
        let (top, low) = hour.sky
        return [(0, top * tint), (1, low * tint)]
    }

    /// Far shores of forest, autumn, rock or blue distance, and water of their own colour that
    /// shows the sky upside down, darker, and ripples.
    private mutating func paintLake(on canvas: inout Canvas) {
        let (top, low) = hour.sky
        let width = canvas.aspect
        canvas.gradient(top: 0, bottom: horizon, tintedSky)
        let shore = tinted(generator.pick([0x2E_4A3A, 0x7A_5A2A, 0x4A_4A52, 0x3A_4A6A]))
        hills(on: &canvas, color: low.mixed(with: shore, 0.6), height: Float(0.04 + generator.unit() * 0.12))
        let water = tinted(generator.pick([0x2A_5D7C, 0x1E_4A4A, 0x4A_5A3A, 0x3A_3A5A]))
        canvas.gradient(
            top: horizon, bottom: 1,
            [(0, low.mixed(with: water, 0.4) * 0.8), (1, top.mixed(with: water, 0.6) * 0.6)])
        for _ in 0..<Int(30 * width) {
            let y = horizon + Float(generator.unit()).squareRoot() * (1 - horizon)
            let x = Float(generator.unit()) * width
            let length = Float(0.02 + generator.unit() * 0.12) * (y - horizon + 0.1) * 2
            canvas.line(
                from: SIMD2(x, y), to: SIMD2(x + length, y), thickness: 0.004, low * 1.1, opacity: 0.35)
        }
    }

    /// Red, brown, yellow, painted or grey bricks, of one size or another, each a shade of its
    /// own, above a pavement.
    private mutating func paintBrickWall(on canvas: inout Canvas) {
        let brick = tinted(generator.pick([0x92_3F2C, 0x6E_4A3A, 0xB8_925A, 0xD8_D4CC, 0x6A_6A6E]))
        let mortar = tinted(generator.pick([0xB8_AFA4, 0x5A_5550]))
        let (course, length) = (Float(0.04 + generator.unit() * 0.035), Float(0.1 + generator.unit() * 0.08))
        let variation = generator.next()
        canvas.pattern { x, y in
            let row = Int(y / course)
            let shifted = x + (row % 2 == 0 ? 0 : length / 2)
            let column = Int(shifted / length)
            let (inRow, inColumn) = (y - Float(row) * course, shifted - Float(column) * length)
            if inRow < 0.008 || inColumn < 0.008 { return (mortar.x, mortar.y, mortar.z) }
            let shade = Float(((variation &+ UInt64(row &* 977 &+ column)) &* 0x9E37_79B9_7F4A_7C15) >> 54) / 1_024
            let light = 0.75 + shade * 0.35
            return (brick.x * light, brick.y * light, brick.z * light)
        }
        canvas.gradient(top: 0.86, bottom: 1, [(0, tinted(0x55_514C)), (1, tinted(0x3A_3733))])
    }

    /// Deep water to the horizon, waves catching the light, and the sun's path on them.
    private mutating func paintOcean(on canvas: inout Canvas) {
        let low = hour.sky.horizon
        let width = canvas.aspect
        canvas.gradient(top: 0, bottom: horizon, tintedSky)
        canvas.gradient(
            top: horizon, bottom: 1, [(0, tinted(0x2A_5D7C).mixed(with: low, 0.3)), (1, tinted(0x0D_2A40))])
        for _ in 0..<Int(60 * width) {
            let y = horizon + Float(generator.unit()) * (1 - horizon)
            let x = Float(generator.unit()) * width
            let length = Float(0.03 + generator.unit() * 0.1) * (y - horizon + 0.15) * 2
            canvas.line(
                from: SIMD2(x, y), to: SIMD2(x + length, y - 0.004), thickness: 0.005, Paint(0.85, 0.9, 0.95),
                opacity: 0.25)
        }
        if hour != .overcast {
            canvas.ellipse(
                x: sun.x * width, y: (horizon + 1) / 2, rx: 0.03, ry: (1 - horizon) / 2, low * 1.3, opacity: 0.25,
                softness: 0.05)
        }
    }

    /// A road to a vanishing point between two rows of facades, and the lights of shops and
    /// cars, out of focus.
    private mutating func paintBusyStreet(on canvas: inout Canvas) {
        let width = canvas.aspect
        canvas.gradient(top: 0, bottom: horizon, tintedSky)
        let vanishing = SIMD2(width * across, horizon)
        canvas.polygon(
            [SIMD2(0, 1), SIMD2(width, 1), vanishing + SIMD2(0.02, 0), vanishing - SIMD2(0.02, 0)],
            tinted(0x4A_4A4E))
        for side in [Float(0), width] {
            let facade = tinted(generator.pick([0x5B_4B44, 0x6E_6A66, 0x3F_4650]))
            canvas.polygon(
                [
                    SIMD2(side, 0), SIMD2(side, 1), vanishing + SIMD2(side == 0 ? -0.05 : 0.05, 0.02),
                    vanishing + SIMD2(side == 0 ? -0.05 : 0.05, -0.15),
                ], facade)
        }
        for _ in 0..<Int(25 * width) {
            let x = Float(generator.unit()) * width
            let y = horizon - 0.1 + Float(generator.unit()) * 0.35
            let radius = Float(0.01 + generator.unit() * 0.03)
            let color = generator.pick([Paint(1, 0.8, 0.45), Paint(1, 0.95, 0.85), Paint(0.95, 0.3, 0.25)])
            canvas.ellipse(x: x, y: y, rx: radius, ry: radius, color, opacity: 0.45, softness: radius / 2)
        }
    }

    /// A ridge of three to six peaks, snow on each a quarter of the way down its slopes, above
    /// green meadows.
    private mutating func paintMountain(on canvas: inout Canvas) {
        let low = hour.sky.horizon
        let width = canvas.aspect
        canvas.gradient(top: 0, bottom: horizon + 0.1, tintedSky)
        var peaks: [SIMD2<Float>] = [SIMD2(0, horizon + 0.1)]
        let count = 3 + Int(generator.next() % 4)
        for index in 0...count {
            let x = width * Float(index) / Float(count)
            let y = horizon - 0.05 - Float(generator.unit()) * (horizon - 0.1)
            peaks.append(SIMD2(x, index % 2 == 0 ? y : y + 0.12))
        }
        peaks.append(SIMD2(width, horizon + 0.1))
        canvas.polygon(peaks, tinted(0x5A_6478).mixed(with: low, 0.25))
        for index in peaks.indices.dropFirst().dropLast() {
            let (left, peak, right) = (peaks[index - 1], peaks[index], peaks[index + 1])
            guard peak.y < left.y, peak.y < right.y else { continue }
            canvas.polygon(
                [peak, peak + (left - peak) * 0.25, peak + (right - peak) * 0.25], Paint(0.93, 0.95, 0.98),
                opacity: 0.9)
        }
        canvas.gradient(top: horizon + 0.1, bottom: 1, [(0, tinted(0x5E_7A3E)), (1, tinted(0x2F_4424))])
    }

    /// The Milky Way across some skies, an aurora over others, stars, the moon, and dark hills.
    private mutating func paintNightSky(on canvas: inout Canvas) {
        let (top, low) = hour.sky
        let width = canvas.aspect
        canvas.gradient(top: 0, bottom: 1, [(0, top * tint), (0.8, low * tint), (1, low * tint)])
        if generator.next() % 2 == 0 {
            let (from, to) = (
                SIMD2(0, Float(generator.unit()) * horizon), SIMD2(width, Float(generator.unit()) * horizon)
            )
            canvas.line(from: from, to: to, thickness: 0.18, Paint(0.55, 0.5, 0.62), opacity: 0.3)
            canvas.line(from: from, to: to, thickness: 0.07, Paint(0.75, 0.7, 0.8), opacity: 0.25)
        }
        if generator.next() % 3 == 0 {
            let glow = generator.pick([Paint(0.2, 0.8, 0.45), Paint(0.55, 0.3, 0.75)])
            canvas.ellipse(
                x: width * across, y: horizon * 0.7, rx: width * 0.6, ry: 0.12, glow, opacity: 0.4, softness: 0.1)
        }
        for _ in 0..<Int(220 * width) {
            let x = Float(generator.unit()) * width
            let y = Float(generator.unit()) * horizon * 1.2
            let radius = Float(0.0015 + generator.unit() * generator.unit() * 0.005)
            canvas.ellipse(
                x: x, y: y, rx: radius, ry: radius, Paint(0.95, 0.95, 1), opacity: 0.9, softness: 0.001)
        }
        let moon = Float(0.025 + generator.unit() * 0.05)
        canvas.ellipse(x: sun.x * width, y: sun.y, rx: moon, ry: moon, Paint(0.96, 0.94, 0.85))
        hills(on: &canvas, color: Paint(0.02, 0.025, 0.04), height: 0.12)
        canvas.gradient(
            top: horizon + 0.05, bottom: 1, [(0, Paint(0.02, 0.025, 0.04)), (1, Paint(0.01, 0.01, 0.02))])
    }

    /// Oak, walnut, pine or weathered grey, in planks of one width or another, one way or the
    /// other, the whole picture.
    private mutating func paintWoodenTable(on canvas: inout Canvas) {
        let (light, dark) = generator.pick([
            (tinted(0xB0_8050), tinted(0x8A_6038)), (tinted(0x5E_3A1F), tinted(0x3E_2412)),
            (tinted(0xC8_A070), tinted(0xA0_7848)), (tinted(0x9A_948A), tinted(0x77_706A)),
        ])
        let (gap, plankWidth) = (dark * 0.45, Float(0.14 + generator.unit() * 0.16))
        let (grain, across) = (Float(generator.unit()) * 6, generator.next() % 2 == 0)
        canvas.pattern { x, y in
            let (along, side) = across ? (x, y) : (y, x)
            let plank = Int(side / plankWidth)
            if side - Float(plank) * plankWidth < 0.006 { return (gap.x, gap.y, gap.z) }
            let wave = (sin(side * 90 + sin(along * 3 + grain + Float(plank)) * 2.5) * 0.5 + 0.5) * 0.6
            let shade = 0.9 + Float(plank % 3) * 0.06
            return (
                (light.x + (dark.x - light.x) * wave) * shade, (light.y + (dark.y - light.y) * wave) * shade,
                (light.z + (dark.z - light.z) * wave) * shade
            )
        }
    }

    /// A dark room, a window with the sky through its panes, brighter than the room, and the
    /// light it casts on the floor.
    private func paintWindow(on canvas: inout Canvas) {
        let (top, low) = hour.sky
        let width = canvas.aspect
        canvas.gradient(top: 0, bottom: 1, [(0, tinted(0x3A_3530)), (1, tinted(0x24_201C))])
        let (left, right) = (width * (across - 0.22), width * (across - 0.22) + 0.5)
        let (upper, lower) = (Float(0.12), min(0.8, horizon + 0.25))
        let panes = (top * tint).mixed(with: low * tint, 0.7) * 1.15
        canvas.polygon([SIMD2(left, upper), SIMD2(right, upper), SIMD2(right, lower), SIMD2(left, lower)], panes)
        for x in [left, (left + right) / 2, right] {
            canvas.line(from: SIMD2(x, upper), to: SIMD2(x, lower), thickness: 0.02, tinted(0xE8_E2D8))
        }
        for y in [upper, (upper + lower) / 2, lower] {
            canvas.line(from: SIMD2(left, y), to: SIMD2(right, y), thickness: 0.02, tinted(0xE8_E2D8))
        }
        canvas.ellipse(
            x: (left + right) / 2 + 0.1, y: 0.95, rx: 0.35, ry: 0.08, low * 1.2, opacity: 0.35, softness: 0.08)
    }

    /// Wet ground, rain falling, slanted by the wind, and puddles holding the sky.
    private mutating func paintRain(on canvas: inout Canvas) {
        let low = hour.sky.horizon
        let width = canvas.aspect
        canvas.gradient(top: 0, bottom: horizon, tintedSky)
        canvas.gradient(top: horizon, bottom: 1, [(0, tinted(0x4C_5158)), (1, tinted(0x25_282D))])
        let slant = Float(generator.unit() - 0.5) * 0.1
        for _ in 0..<Int(90 * width) {
            let (x, y) = (Float(generator.unit()) * (width + 0.1) - 0.05, Float(generator.unit()))
            let length = Float(0.03 + generator.unit() * 0.05)
            canvas.line(
                from: SIMD2(x, y), to: SIMD2(x + slant * length * 4, y + length), thickness: 0.0025,
                Paint(0.85, 0.88, 0.92), opacity: 0.3)
        }
        for _ in 0..<Int(6 * width) {
            let x = Float(generator.unit()) * width
            let y = horizon + 0.1 + Float(generator.unit()) * (0.85 - horizon)
            canvas.ellipse(
                x: x, y: y, rx: Float(0.05 + generator.unit() * 0.12), ry: 0.012, low, opacity: 0.5,
                softness: 0.01)
        }
    }

    /// Far hills along the horizon, `height` units high at most.
    private mutating func hills(on canvas: inout Canvas, color: Paint, height: Float) {
        var outline: [SIMD2<Float>] = [SIMD2(0, horizon + 0.01)]
        let steps = 8
        for index in 0...steps {
            let x = canvas.aspect * Float(index) / Float(steps)
            outline.append(SIMD2(x, horizon - Float(generator.unit()) * height))
        }
        outline.append(SIMD2(canvas.aspect, horizon + 0.01))
        canvas.polygon(outline, color)
    }

    private mutating func bridge(on canvas: inout Canvas) {
        let deck = horizon - 0.06
        let color = tinted(generator.pick([0x8E_3A2C, 0x4A_4F57, 0x7A_6E62]))
        canvas.line(from: SIMD2(0, deck), to: SIMD2(canvas.aspect, deck), thickness: 0.025, color)
        let span = canvas.aspect / 3
        for index in 0..<4 {
            let x = span * Float(index)
            canvas.line(from: SIMD2(x, deck), to: SIMD2(x, horizon + 0.04), thickness: 0.03, color)
            if index < 3 {
                // An arch under the deck, as a few strokes.
                let points = (0...8).map { step -> SIMD2<Float> in
                    let t = Float(step) / 8
                    return SIMD2(x + span * t, deck + 0.01 + (1 - 4 * t * (1 - t)) * 0.06)
                }
                for (a, b) in zip(points, points.dropFirst()) {
                    canvas.line(from: a, to: b, thickness: 0.012, color)
                }
            }
        }
    }
}

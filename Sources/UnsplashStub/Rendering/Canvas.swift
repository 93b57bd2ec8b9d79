/// A colour as the stub paints with it: red, green and blue in 0...1, in sRGB as stored.
typealias Paint = SIMD3<Float>

extension Paint {
    /// `#rrggbb`, from 0-255 components.
    init(hex: UInt32) {
        self.init(Float(hex >> 16 & 0xFF) / 255, Float(hex >> 8 & 0xFF) / 255, Float(hex & 0xFF) / 255)
    }

    /// `self` moved a `fraction` of the way to `other`.
    func mixed(with other: Paint, _ fraction: Float) -> Paint {
        self + (other - self) * fraction
    }
}

/// A picture being painted: rows of RGB pixels, and the few strokes the stub's scenes are made
/// of (gradients, ellipses, polygons, lines), each with a soft edge so that nothing looks drawn.
///
/// Coordinates are in units of the picture's height, from the top left: (0, 0) to
/// (`aspect`, 1). A shape is then the same in a thumbnail as in a large rendition, and only the
/// pixels it covers are visited.
///
/// The loops over pixels work on scalars through a buffer pointer, the shapes' colours taken
/// apart once per shape.
struct Canvas {
    let width: Int
    let height: Int
    /// Pixels row by row from the top, three floats each.
    private(set) var pixels: [Float]

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        pixels = [Float](repeating: 0, count: width * height * 3)
    }

    /// Width over height.
    var aspect: Float { Float(width) / Float(height) }

    private var scale: Float { Float(height) }

    /// The pixel rows and columns a box in picture units covers, clipped to the picture.
    private func pixelRange(minX: Float, maxX: Float, minY: Float, maxY: Float) -> (
        xs: Range<Int>, ys: Range<Int>
    )? {
        let x0 = max(0, Int((minX * scale).rounded(.down)))
        let x1 = min(width, Int((maxX * scale).rounded(.up)) + 1)
        let y0 = max(0, Int((minY * scale).rounded(.down)))
        let y1 = min(height, Int((maxY * scale).rounded(.up)) + 1)
        guard x0 < x1, y0 < y1 else { return nil }
        return (x0..<x1, y0..<y1)
    }

    /// Lays `paint` over each pixel of the box with the coverage `cover` gives from the pixel's
    /// centre (in picture units), times `opacity`.
    private mutating func cover(
        minX: Float, maxX: Float, minY: Float, maxY: Float, _ paint: Paint, opacity: Float,
        _ cover: (_ x: Float, _ y: Float) -> Float
    ) {
        guard opacity > 0, let range = pixelRange(minX: minX, maxX: maxX, minY: minY, maxY: maxY) else { return }
        let (red, green, blue, scale, width) = (paint.x, paint.y, paint.z, scale, width)
        pixels.withUnsafeMutableBufferPointer { pixels in
            for y in range.ys {
                let v = (Float(y) + 0.5) / scale
                for x in range.xs {
                    let covered = cover((Float(x) + 0.5) / scale, v)
                    guard covered > 0 else { continue }
                    let amount = (covered < 1 ? covered : 1) * opacity
                    let index = (y * width + x) * 3
                    pixels[index] += (red - pixels[index]) * amount
                    pixels[index + 1] += (green - pixels[index + 1]) * amount
                    pixels[index + 2] += (blue - pixels[index + 2]) * amount
                }
            }
        }
    }

    /// Rows `top` to `bottom` (picture units) painted each the colour `row` gives at its middle.
    mutating func rows(top: Float, bottom: Float, _ row: (_ y: Float) -> Paint) {
        guard let range = pixelRange(minX: 0, maxX: aspect, minY: top, maxY: bottom) else { return }
        let (scale, width) = (scale, width)
        pixels.withUnsafeMutableBufferPointer { pixels in
            for y in range.ys {
                let v = (Float(y) + 0.5) / scale
                guard v >= top, v < bottom else { continue }
                let color = row(v)
                let (red, green, blue) = (color.x, color.y, color.z)
                for x in 0..<width {
                    let index = (y * width + x) * 3
                    (pixels[index], pixels[index + 1], pixels[index + 2]) = (red, green, blue)
                }
            }
        }
    }

    /// A vertical gradient through `stops` (position 0 at `top`, 1 at `bottom`).
    mutating func gradient(top: Float, bottom: Float, _ stops: [(Float, Paint)]) {
        rows(top: top, bottom: bottom) { y in Self.interpolate(stops, at: (y - top) / max(bottom - top, 0.0001)) }
    }

    /// The colour at `t` between `stops`, each a position (rising) and a colour.
    static func interpolate(_ stops: [(Float, Paint)], at t: Float) -> Paint {
        guard var previous = stops.first else { return Paint(0, 0, 0) }
        for stop in stops.dropFirst() {
            if t <= stop.0 {
                return previous.1.mixed(with: stop.1, max(0, (t - previous.0) / max(stop.0 - previous.0, 0.0001)))
            }
            previous = stop
        }
        return previous.1
    }

    /// Every pixel of rows `top` to `bottom` painted with what `paint` says of its centre, a
    /// colour given as its three components: for patterns (bricks, wood) drawn point by point.
    mutating func pattern(
        top: Float = 0, bottom: Float = 1, _ paint: (_ x: Float, _ y: Float) -> (Float, Float, Float)
    ) {
        guard let range = pixelRange(minX: 0, maxX: aspect, minY: top, maxY: bottom) else { return }
        let (scale, width) = (scale, width)
        pixels.withUnsafeMutableBufferPointer { pixels in
            for y in range.ys {
                let v = (Float(y) + 0.5) / scale
                for x in range.xs {
                    let index = (y * width + x) * 3
                    (pixels[index], pixels[index + 1], pixels[index + 2]) = paint((Float(x) + 0.5) / scale, v)
                }
            }
        }
    }

    /// A filled ellipse centred at (`x`, `y`), its edge softened over `softness` units.
    mutating func ellipse(
        x: Float, y: Float, rx: Float, ry: Float, _ paint: Paint, opacity: Float = 1, softness: Float = 0.004
    ) {
        guard rx > 0, ry > 0 else { return }
        let edge = max(softness, 0.6 / scale)
        let radius = min(rx, ry)
        // One smaller than its soft edge is drawn fainter, so that it darkens or lightens the
        // picture as much at any size: a star is as bright in a thumbnail as in a large one.
        let faded = opacity * min(1, rx * ry / (edge * edge))
        cover(minX: x - rx - edge, maxX: x + rx + edge, minY: y - ry - edge, maxY: y + ry + edge, paint, opacity: faded)
        { px, py in
            let (dx, dy) = ((px - x) / rx, (py - y) / ry)
            // The distance to the edge, roughly in picture units.
            return 0.5 - ((dx * dx + dy * dy).squareRoot() - 1) * radius / edge
        }
    }

    /// A filled polygon through `points`, its edge softened by a pixel.
    mutating func polygon(_ points: [SIMD2<Float>], _ paint: Paint, opacity: Float = 1) {
        guard points.count >= 3 else { return }
        let (xs, ys) = (points.map(\.x), points.map(\.y))
        let count = points.count
        let scale = scale
        cover(minX: xs.min()!, maxX: xs.max()!, minY: ys.min()!, maxY: ys.max()!, paint, opacity: opacity) { px, py in
            var inside = false
            var nearest = Float.greatestFiniteMagnitude
            var previous = count - 1
            for current in 0..<count {
                let (ax, ay, bx, by) = (xs[previous], ys[previous], xs[current], ys[current])
                if (ay > py) != (by > py), px < (bx - ax) * (py - ay) / (by - ay) + ax { inside.toggle() }
                let distance = Self.distance(px, py, ax, ay, bx, by)
                if distance < nearest { nearest = distance }
                previous = current
            }
            return 0.5 - (inside ? -nearest : nearest) * scale
        }
    }

    /// A straight stroke from `a` to `b`, `thickness` units wide.
    mutating func line(
        from a: SIMD2<Float>, to b: SIMD2<Float>, thickness: Float, _ paint: Paint, opacity: Float = 1
    ) {
        // At least a pixel wide, and then fainter, as much paint at any size (as for ellipses).
        let half = max(thickness / 2, 0.7 / scale)
        let faded = opacity * thickness / 2 / half
        let (ax, ay, bx, by, scale) = (a.x, a.y, b.x, b.y, scale)
        cover(
            minX: min(ax, bx) - half, maxX: max(ax, bx) + half, minY: min(ay, by) - half, maxY: max(ay, by) + half,
            paint, opacity: faded
        ) { px, py in
            (half - Self.distance(px, py, ax, ay, bx, by)) * scale + 0.5
        }
    }

    /// A ring: the outline of a circle, `thickness` units wide.
    mutating func ring(x: Float, y: Float, radius: Float, thickness: Float, _ paint: Paint) {
        let outer = radius + thickness
        let scale = scale
        cover(minX: x - outer, maxX: x + outer, minY: y - outer, maxY: y + outer, paint, opacity: 1) { px, py in
            let (dx, dy) = (px - x, py - y)
            return 0.5 - (abs((dx * dx + dy * dy).squareRoot() - radius) - thickness / 2) * scale
        }
    }

    /// Light and shadow: every pixel multiplied by `glow` times the light's colour where `glow`
    /// (of the pixel's centre) is high, by `ambient` everywhere, and darkened towards the edges.
    mutating func light(_ color: Paint, ambient: Float, glow: (_ x: Float, _ y: Float) -> Float) {
        let (scale, width, height, aspect) = (scale, width, height, aspect)
        let (red, green, blue) = (color.x, color.y, color.z)
        pixels.withUnsafeMutableBufferPointer { pixels in
            for y in 0..<height {
                let v = (Float(y) + 0.5) / scale
                let down = (v - 0.5) * 2
                for x in 0..<width {
                    let u = (Float(x) + 0.5) / scale
                    let across = (u / aspect - 0.5) * 2
                    let vignette = 1 - 0.11 * (across * across + down * down)
                    let lit = glow(u, v)
                    let index = (y * width + x) * 3
                    pixels[index] *= (ambient + red * lit) * vignette
                    pixels[index + 1] *= (ambient + green * lit) * vignette
                    pixels[index + 2] *= (ambient + blue * lit) * vignette
                }
            }
        }
    }

    /// A 3x3 blur: the softness of a lens rather than of a drawing.
    mutating func soften() {
        guard width > 2, height > 2 else { return }
        let (width, height) = (width, height)
        var across = pixels
        across.withUnsafeMutableBufferPointer { across in
            pixels.withUnsafeBufferPointer { pixels in
                for y in 0..<height {
                    for x in 0..<width {
                        let (left, right) = ((y * width + max(0, x - 1)) * 3, (y * width + min(width - 1, x + 1)) * 3)
                        let index = (y * width + x) * 3
                        for channel in 0..<3 {
                            across[index + channel] =
                                pixels[index + channel] * 0.5
                                + (pixels[left + channel] + pixels[right + channel]) * 0.25
                        }
                    }
                }
            }
        }
        across.withUnsafeBufferPointer { across in
            pixels.withUnsafeMutableBufferPointer { pixels in
                for y in 0..<height {
                    for x in 0..<width {
                        let (up, down) = ((max(0, y - 1) * width + x) * 3, (min(height - 1, y + 1) * width + x) * 3)
                        let index = (y * width + x) * 3
                        for channel in 0..<3 {
                            pixels[index + channel] =
                                across[index + channel] * 0.5 + (across[up + channel] + across[down + channel]) * 0.25
                        }
                    }
                }
            }
        }
    }

    /// Film grain: each pixel lightened or darkened a little, the same way in each channel.
    mutating func grain(strength: Float, using generator: inout SplitMix64) {
        let count = width * height
        pixels.withUnsafeMutableBufferPointer { pixels in
            for index in 0..<count {
                let noise = (Float(generator.next() >> 40) / Float(1 << 24) - 0.5) * strength
                pixels[index * 3] += noise
                pixels[index * 3 + 1] += noise
                pixels[index * 3 + 2] += noise
            }
        }
    }

    /// The mean of every pixel, as the picture's bytes hold it: each value within 0...1.
    var average: Paint {
        var (red, green, blue) = (Double(0), Double(0), Double(0))
        pixels.withUnsafeBufferPointer { pixels in
            for index in stride(from: 0, to: pixels.count, by: 3) {
                red += Double(Self.clamped(pixels[index]))
                green += Double(Self.clamped(pixels[index + 1]))
                blue += Double(Self.clamped(pixels[index + 2]))
            }
        }
        let count = Double(max(1, width * height))
        return Paint(Float(red / count), Float(green / count), Float(blue / count))
    }

    /// Moves every pixel by the same amount in each channel, so that the picture's mean is
    /// `target`: a photo's average colour is its `color`. Pixels held at 0 or 1 do not move, so
    /// each round moves the others further, by what the held ones could not.
    mutating func settle(average target: Paint) {
        let count = width * height
        pixels.withUnsafeMutableBufferPointer { pixels in
            for index in pixels.indices { pixels[index] = Self.clamped(pixels[index]) }
        }
        for _ in 0..<8 {
            let shift = target - average
            guard max(abs(shift.x), abs(shift.y), abs(shift.z)) > 0.25 / 255 else { break }
            var movable = [0, 0, 0]
            pixels.withUnsafeBufferPointer { pixels in
                for index in pixels.indices where shift[index % 3] > 0 ? pixels[index] < 1 : pixels[index] > 0 {
                    movable[index % 3] += 1
                }
            }
            let steps = (0..<3).map { shift[$0] * Float(count) / Float(max(1, movable[$0])) }
            pixels.withUnsafeMutableBufferPointer { pixels in
                for index in stride(from: 0, to: pixels.count, by: 3) {
                    pixels[index] = Self.clamped(pixels[index] + steps[0])
                    pixels[index + 1] = Self.clamped(pixels[index + 1] + steps[1])
                    pixels[index + 2] = Self.clamped(pixels[index + 2] + steps[2])
                }
            }
        }
    }

    /// The pixels as bytes, three a pixel.
    var bytes: [UInt8] {
        var bytes = [UInt8](repeating: 0, count: pixels.count)
        bytes.withUnsafeMutableBufferPointer { bytes in
            pixels.withUnsafeBufferPointer { pixels in
                for index in 0..<pixels.count { bytes[index] = UInt8(Self.clamped(pixels[index]) * 255 + 0.5) }
            }
        }
        return bytes
    }

    /// `value` within 0...1.
    private static func clamped(_ value: Float) -> Float {
        value < 0 ? 0 : value > 1 ? 1 : value
    }

    /// How far (px, py) is from the segment from (ax, ay) to (bx, by).
    private static func distance(_ px: Float, _ py: Float, _ ax: Float, _ ay: Float, _ bx: Float, _ by: Float)
        -> Float
    {
        let (sx, sy) = (bx - ax, by - ay)
        let length = sx * sx + sy * sy
        let t = length > 0 ? min(1, max(0, ((px - ax) * sx + (py - ay) * sy) / length)) : 0
        let (ox, oy) = (px - ax - sx * t, py - ay - sy * t)
        return (ox * ox + oy * oy).squareRoot()
    }
}

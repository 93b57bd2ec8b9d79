import Basics
import Foundation
import TestSupport
import Testing
import UnsplashStub

@testable import Gallery

/// The stub's images are pictures of the photos they belong to, as a decoder shows them
/// (libjpeg-turbo's djpeg): each one different, of the photo's own proportions, its average
/// colour the photo's `color`, its broad shapes the photo's `blur_hash`.
@Suite(.timeLimit(.minutes(5))) struct StubPictureTests {
    /// What a test reads of a photo and its decoded `regular` image.
    struct Seen {
        let id: String
        let width: Int
        let height: Int
        let color: String
        let blurHash: String
        let picture: DecodedPicture
    }

    /// The first page of the demo's stub (its image size), each photo with its picture.
    static func firstPage() async throws -> [Seen] {
        var seen: [Seen] = []
        try await withStub(photoCount: 30, imageSize: 40_000) { stub, client in
            let page = try await client.get(stub, "/photos?per_page=30")
            for (photo, url) in zip(try page.photos(), try page.photoURLs("regular")) {
                let image = try await client.get(url)
                seen.append(
                    Seen(
                        id: try #require(photo["id"] as? String), width: try #require(photo["width"] as? Int),
                        height: try #require(photo["height"] as? Int), color: try #require(photo["color"] as? String),
                        blurHash: try #require(photo["blur_hash"] as? String),
                        picture: try await DecodedPicture.decoding(image.body)))
            }
        }
        return seen
    }

    @Test func eachPhotoIsAPictureOfItsOwnShapeAndColour() async throws {
        // GIVEN the thirty photos of a first page, WHEN their images are decoded
        let photos = try await Self.firstPage()
        #expect(photos.count == 30)

        for photo in photos {
            // THEN each picture has its photo's proportions, to the pixel
            let (long, short) = (max(photo.width, photo.height), min(photo.width, photo.height))
            let pictureLong = max(photo.picture.width, photo.picture.height)
            let pictureShort = min(photo.picture.width, photo.picture.height)
            #expect(pictureLong >= 160, "\(photo.id): a picture a tile can show, \(pictureLong) px")
            #expect(
                pictureShort == Int((Double(pictureLong) * Double(short) / Double(long)).rounded()),
                "\(photo.id): \(photo.picture.width)x\(photo.picture.height) for \(photo.width)x\(photo.height)")
            #expect((photo.picture.width > photo.picture.height) == (photo.width > photo.height), "\(photo.id)")
            // AND its average colour is the photo's `color`
            let color = try #require(rgb(ofHexColor: photo.color), "\(photo.color)")
            let difference = photo.picture.average - color
            #expect(
                max(abs(difference.x), abs(difference.y), abs(difference.z)) <= 4,
                "\(photo.id): average \(photo.picture.average), color \(photo.color)")
        }
    }

    @Test func noTwoPhotosAreTheSamePicture() async throws {
        let photos = try await Self.firstPage()
        // Each pair differs, cell by cell (8 x 8 of each picture, each stretched to its own
        // darkest and brightest), by a twentieth of the scale on average.
        let closest = closestPair(photos.map { ($0.id, $0.picture.cells(8)) })
        #expect(closest.difference >= 0.05, "the closest two: \(closest)")
        #expect(Set(photos.map(\.color)).count == photos.count, "a colour of its own each")
    }

    @Test func theBlurHashIsThePicturesOwn() async throws {
        for photo in try await Self.firstPage() {
            // The hash's components, as a client decodes them (the gallery's decoder)...
            let served = try #require(BlurHash(photo.blurHash), "\(photo.blurHash)")
            #expect(served.columns == 4 && served.rows == 3)
            // ... and the same components computed from the decoded picture, in linear light.
            let measured = Self.components(of: photo.picture, columns: served.columns, rows: served.rows)
            let largest = served.colors.dropFirst().map { max(abs($0.x), abs($0.y), abs($0.z)) }.max() ?? 0
            for (index, (theirs, ours)) in zip(served.colors, measured).enumerated() {
                let difference = theirs - ours
                let gap = max(abs(difference.x), abs(difference.y), abs(difference.z))
                // The average colour is sent to the byte; the others quantised to 19 levels of a
                // signed square root of the largest (up to a ninth of it off), and read from a
                // smaller painting of the scene than this picture.
                #expect(gap <= (index == 0 ? 0.02 : 0.2 * largest + 0.01), "\(photo.id) component \(index)")
            }
        }
    }

    /// BlurHash's components of a picture: each the mean of the linear colour weighted by a
    /// cosine across and one down, the first the average colour.
    static func components(of picture: DecodedPicture, columns: Int, rows: Int) -> [SIMD3<Double>] {
        let linear = (0...255).map(SRGB.linear)
        let (width, height) = (picture.width, picture.height)
        var components: [SIMD3<Double>] = []
        for row in 0..<rows {
            let down = (0..<height).map { cos(Double.pi * Double(row * $0) / Double(height)) }
            for column in 0..<columns {
                let across = (0..<width).map { cos(Double.pi * Double(column * $0) / Double(width)) }
                var (red, green, blue) = (0.0, 0.0, 0.0)
                for y in 0..<height {
                    for x in 0..<width {
                        let (weight, pixel) = (down[y] * across[x], (y * width + x) * 3)
                        red += linear[Int(picture.rgb[pixel])] * weight
                        green += linear[Int(picture.rgb[pixel + 1])] * weight
                        blue += linear[Int(picture.rgb[pixel + 2])] * weight
                    }
                }
                let scale = (row == 0 && column == 0 ? 1 : 2) / Double(width * height)
                components.append(SIMD3(red, green, blue) * scale)
            }
        }
        return components
    }

    @Test func aSmallImageIsASmallerPictureAndATinyOneStillAJPEG() async throws {
        try await withStub(photoCount: 1, imageSize: 2_000) { stub, _ in
            let id = try #require(await stub.photoIDs().first)
            // The e2e tests' images (2 KB): a picture still, smaller.
            let small = try await DecodedPicture.decoding(stub.imageBytes(photoID: id, variant: ImageVariant.regular))
            #expect(max(small.width, small.height) >= 32)
            #expect(max(small.width, small.height) < 160)
            // A thumb of 400 bytes holds no picture: a JPEG's first and last markers around noise.
            let thumb = stub.imageBytes(photoID: id, variant: ImageVariant.thumb)
            #expect(thumb.count < 640)
            #expect(Array(thumb.prefix(3)) == [0xFF, 0xD8, 0xFF] && Array(thumb.suffix(2)) == [0xFF, 0xD9])
        }
    }
}

import Foundation
import Testing
import UnsplashStub

@Suite(.timeLimit(.minutes(5))) struct FeedFaultTests {
    @Test func anEmptyPageKeepsItsNextLinkAndTotal() async throws {
        try await withStub(photoCount: 45) { stub, client in
            await stub.serveEmptyPage(2)

            let empty = try await client.get(stub, "/photos?page=2&per_page=10")
            let healed = try await client.get(stub, "/photos?page=2&per_page=10")

            #expect(empty.status == 200)
            #expect(String(decoding: empty.body, as: UTF8.self) == "[]")
            #expect(empty.links["next"]?.hasSuffix("/photos?page=3&per_page=10") == true)
            #expect(empty.header("X-Total") == "45")
            #expect(try healed.photoIDs() == Array(await stub.photoIDs()[10..<20]), "once, by default")
        }
    }

    @Test func malformedJSONIsCutOffHalfway() async throws {
        try await withStub(photoCount: 45) { stub, client in
            await stub.serveMalformedJSON(onPage: 1, repeat: .times(2))

            let answers = try await [
                client.get(stub, "/photos"), client.get(stub, "/photos"), client.get(stub, "/photos"),
            ]

            for broken in answers.prefix(2) {
                #expect(broken.status == 200)
                #expect(broken.header("Content-Type") == "application/json")
                #expect(broken.body.starts(with: Data(#"[{"id":"#.utf8)))
                #expect(throws: (any Error).self) { try JSONSerialization.jsonObject(with: broken.body) }
            }
            #expect(try answers[2].photoIDs().count == 10)
        }
    }

    @Test func damagedPhotosSpoilOnlyTheirSlot() async throws {
        try await withStub(photoCount: 45) { stub, client in
            // GIVEN
            await stub.damagePhoto(onPage: 1, slot: 1, .missingID)
            await stub.damagePhoto(onPage: 1, slot: 2, .emptyID)
            await stub.damagePhoto(onPage: 1, slot: 3, .wrongType(field: "width"))
            await stub.damagePhoto(onPage: 1, slot: 4, .wrongType(field: "id"))
            let ids = Array(await stub.photoIDs()[0..<10])

            // WHEN the page is asked for twice
            for _ in 0..<2 {
                let photos = try await client.get(stub, "/photos?per_page=10").photos()

                // THEN
                #expect(photos.count == 10)
                #expect(photos[1]["id"] == nil)
                #expect(photos[2]["id"] as? String == "")
                #expect(photos[3]["width"] as? String == "not a number")
                #expect(photos[4]["id"] as? Int == 42)
                let intact = [0] + Array(5..<10)
                #expect(intact.map { photos[$0]["id"] as? String } == intact.map { ids[$0] })
                // Each defect is in the photo at its slot, whose other fields are intact.
                #expect((photos[1]["slug"] as? String)?.hasSuffix(ids[1]) == true)
                #expect((photos[2]["slug"] as? String)?.hasSuffix(ids[2]) == true)
                #expect(photos[3]["id"] as? String == ids[3])
                #expect((photos[4]["slug"] as? String)?.hasSuffix(ids[4]) == true)
            }
            let otherPage = try await client.get(stub, "/photos?page=2&per_page=10").photos()
            #expect(otherPage.allSatisfy { ($0["id"] as? String)?.count == 11 })
        }
    }

    @Test func photosArriveAtTheHeadAfterEveryKthPageRequest() async throws {
        try await withStub(photoCount: 45) { stub, client in
            // GIVEN
            let before = await stub.photoIDs()
            await stub.addPhotosWhilePaging(count: 3, everyPageRequests: 2)

            // WHEN a client pages
            let first = try await client.get(stub, "/photos?page=1&per_page=10").photoIDs()
            let second = try await client.get(stub, "/photos?page=2&per_page=10").photoIDs()
            let afterSecond = await stub.photoIDs()
            let third = try await client.get(stub, "/photos?page=3&per_page=10")

            // THEN the second page was answered before 3 new photos pushed the rest down
            #expect(first == Array(before[0..<10]))
            #expect(second == Array(before[10..<20]))
            #expect(afterSecond.count == 48)
            #expect(Array(afterSecond.dropFirst(3)) == before)
            #expect(try third.photoIDs() == Array(before[17..<27]), "3 photos of page 2 come again")
            #expect(third.header("X-Total") == "48")
            _ = try await client.get(stub, "/photos?page=4&per_page=10")
            #expect(await stub.photoCount == 51)
        }
    }
}

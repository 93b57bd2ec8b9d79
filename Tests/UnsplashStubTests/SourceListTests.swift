import Foundation
import Testing
import UnsplashStub

/// The lists besides the feed: users' photos and likes, collections, topics and search, drawn
/// from the same photos so that they overlap.
@Suite struct SourceListTests {
    @Test func everyListPagesNewestFirstWithUnsplashsHeaders() async throws {
        try await withStub(photoCount: 120) { stub, client in
            let user = stub.usernames[0]
            for (source, path) in [
                ("user:\(user)", "/users/\(user)/photos?order_by=latest"),
                ("likes:\(user)", "/users/\(user)/likes?order_by=latest"),
                ("collection:3773378", "/collections/3773378/photos?"),
                ("topic:wallpapers", "/topics/wallpapers/photos?order_by=latest"),
            ] {
                // GIVEN what the stub says the list holds
                let expected = try #require(await stub.photoIDs(ofSource: source))
                #expect(expected.count > 3, "\(source)")

                // WHEN it is paged through 3 at a time along rel="next"
                var ids: [String] = []
                var next: String? = "\(await stub.baseURL.absoluteString)\(path)&per_page=3"
                while let url = next.flatMap(URL.init(string:)) {
                    let answer = try await client.get(url)
                    #expect(answer.status == 200)
                    #expect(answer.header("X-Total") == String(expected.count) && answer.header("X-Per-Page") == "3")
                    ids += try answer.photoIDs()
                    next = answer.links["next"]
                    #expect(
                        next.map { $0.contains(path.split(separator: "?")[0]) } ?? true, "a Link keeps the list's path")
                }

                // THEN it held exactly those photos, each once
                #expect(ids == expected, "\(source)")
            }
        }
    }

    @Test func theListsOverlapAndHoldUnsplashPlusPhotosWhereUnsplashDoes() async throws {
        try await withStub(photoCount: 120) { stub, _ in
            let feed = Set(await stub.photoIDs())
            let premium = Set(await stub.premiumPhotoIDs())
            let user = stub.usernames[0]
            let collection = Set(try #require(await stub.photoIDs(ofSource: "collection:3773378")))
            let topic = Set(try #require(await stub.photoIDs(ofSource: "topic:wallpapers")))
            let likes = Set(try #require(await stub.photoIDs(ofSource: "likes:\(user)")))
            #expect(collection.isSubset(of: feed), "a collection's photos are in the feed too")
            #expect(premium.isDisjoint(with: feed) && premium.isSubset(of: topic))
            #expect(!likes.isDisjoint(with: premium) && !likes.isDisjoint(with: feed))
        }
    }

    @Test func unsplashPlusImagesAreOnPremiumURLs() async throws {
        try await withStub(photoCount: 30) { stub, client in
            let answer = try await client.get(stub, "/topics/wallpapers/photos?per_page=30")
            let premium = Set(await stub.premiumPhotoIDs())
            for photo in try answer.photos() where premium.contains(photo["id"] as? String ?? "") {
                let urls = try #require(photo["urls"] as? [String: String])
                #expect(urls["regular"]?.contains("/premium_photo-") == true)
            }
        }
    }

    @Test func searchAnswersTotalPagesAndResultsOverDescriptionWords() async throws {
        try await withStub(photoCount: 120) { stub, client in
            let expected = try #require(await stub.photoIDs(ofSource: "search:lake"))
            #expect(!expected.isEmpty)

            let answer = try await client.get(stub, "/search/photos?query=Lake&order_by=latest&per_page=5")

            let body = try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: Any])
            #expect(body["total"] as? Int == expected.count)
            #expect(body["total_pages"] as? Int == (expected.count + 4) / 5)
            let results = try #require(body["results"] as? [[String: Any]])
            #expect(results.map { $0["id"] as? String } == expected.prefix(5).map { $0 })
            #expect(answer.header("X-Total") == String(expected.count))
            #expect(
                answer.links["next"]?.contains("/search/photos?") == true
                    && answer.links["next"]?.contains("query=Lake") == true)
            for result in results {
                let text = "\(result["description"] as? String ?? "") \(result["alt_description"] as? String ?? "")"
                    .lowercased()
                #expect(text.contains("lake"))
            }
        }
    }

    @Test(arguments: [
        ("/users/nobody-here/photos", "Couldn't find User"), ("/users/nobody-here/likes", "Couldn't find User"),
        ("/collections/999999/photos", "Couldn't find Collection"),
        ("/topics/no-such-topic/photos", "Couldn't find Topic"),
        ("/users/%2E%2E/photos", "Couldn't find User"),
    ])
    func anUnknownListIsA404WithUnsplashsMessage(_ path: String, _ message: String) async throws {
        try await withStub(photoCount: 3) { stub, client in
            let answer = try await client.get(stub, path)
            #expect(answer.status == 404)
            let body = try #require(try JSONSerialization.jsonObject(with: answer.body) as? [String: [String]])
            #expect(body["errors"] == [message])
        }
    }

    @Test func listsAreAuthorizedAndRateLimitedLikeTheFeed() async throws {
        try await withStub(photoCount: 3, accessKey: "stub-key", rateLimit: 1) { stub, client in
            #expect(try await client.get(stub, "/topics/wallpapers/photos", key: "wrong").status == 401)
            let first = try await client.get(stub, "/topics/wallpapers/photos")
            #expect(first.status == 200 && first.header("X-Ratelimit-Remaining") == "0")
            #expect(try await client.get(stub, "/search/photos?query=lake").status == 403)
        }
    }

    @Test func theObjectsListsBelongToHaveTheRecordingsKeysAndCountAgainstTheRateLimit() async throws {
        try await withStub(photoCount: 60, accessKey: "stub-key", rateLimit: 4) { stub, client in
            let user = stub.usernames[0]
            // The top-level keys of the recordings collection.json and topic.json, and of a profile.
            let collectionKeys: Set = [
                "id", "title", "description", "published_at", "last_collected_at", "updated_at", "featured",
                "total_photos", "private", "share_key", "tags", "links", "user", "cover_photo", "preview_photos",
                "meta",
            ]
            let topicKeys: Set = [
                "id", "slug", "title", "description", "published_at", "updated_at", "starts_at", "ends_at",
                "only_submissions_after", "visibility", "featured", "total_photos", "current_user_contributions",
                "total_current_user_submissions", "links", "media_types", "status", "owners", "top_contributors",
                "cover_photo", "preview_photos",
            ]
            let collection = try await client.get(stub, "/collections/3773378")
            let body = try #require(try JSONSerialization.jsonObject(with: collection.body) as? [String: Any])
            #expect(Set(body.keys) == collectionKeys)
            #expect(body["title"] as? String == "Neon Signage")
            #expect(body["total_photos"] as? Int == (await stub.photoIDs(ofSource: "collection:3773378"))?.count)
            #expect(collection.header("X-Ratelimit-Remaining") == "3")
            let stored = try #require(await stub.sourceObject("collection:3773378"))
            #expect(try JSONSerialization.jsonObject(with: Data(stored.utf8)) as? NSDictionary == body as NSDictionary)

            let topic = try await client.get(stub, "/topics/wallpapers")
            let topicBody = try #require(try JSONSerialization.jsonObject(with: topic.body) as? [String: Any])
            #expect(Set(topicBody.keys) == topicKeys)
            #expect(topicBody["slug"] as? String == "wallpapers")

            let profile = try await client.get(stub, "/users/\(user)")
            let profileBody = try #require(try JSONSerialization.jsonObject(with: profile.body) as? [String: Any])
            #expect(profileBody["username"] as? String == user)
            #expect((profileBody["links"] as? [String: String])?["html"] == "https://unsplash.com/@\(user)")

            let missing = try await client.get(stub, "/collections/999999")
            #expect(missing.status == 404)
            let errors = try #require(try JSONSerialization.jsonObject(with: missing.body) as? [String: [String]])
            #expect(errors["errors"] == ["Couldn't find Collection"])
            #expect(try await client.get(stub, "/topics/wallpapers").status == 403, "the fifth request is over")
        }
    }
}

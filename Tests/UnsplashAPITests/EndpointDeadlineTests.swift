import Foundation
import Networking
import Testing
import UnsplashAPI

/// Every request photosync sends to the API carries its deadline to the transport
/// (``TransportRequest/timeout``), which holds the whole answer, head and body, to it.
@Suite struct EndpointDeadlineTests {
    let api = UnsplashAPI(baseURL: URL(string: "https://api.unsplash.test")!, accessKey: "key")

    @Test func everyAPIRouteHasA30SecondDeadline() throws {
        let location = try #require(URL(string: "https://api.unsplash.test/photos/abc/download?ixid=1"))
        let sources: [PhotoSource] = [.feed, .user("ann"), .likes("ann"), .collection("42"), .topic("nature")]
        let objects = try sources.compactMap { try api.object(of: $0)?.request() }
        let requests =
            try sources.map { try api.firstPage(of: $0, perPage: 30, as: PhotoList.self).request() } + objects + [
                api.firstPage(of: .search("cats"), perPage: 30, as: SearchResults.self).request(),
                api.page(atCursor: "/photos?page=2&per_page=30", as: PhotoList.self).request(),
                api.trackDownload(location).request(),
                // `photo_details`: the full object, `GET /photos/:id`
                api.photo(id: "abc").request(),
            ]

        #expect(objects.count == 4)
        #expect(UnsplashAPI.requestTimeout == .seconds(30))
        for request in requests {
            #expect(request.timeout == UnsplashAPI.requestTimeout, "\(request.url)")
        }
    }
}

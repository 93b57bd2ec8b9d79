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
        let requests = try [
            api.firstPage(of: .feed, perPage: 30, as: PhotoList.self).request(),
            api.firstPage(of: .search("cats"), perPage: 30, as: SearchResults.self).request(),
            api.page(atCursor: "/photos?page=2&per_page=30", as: PhotoList.self).request(),
            try #require(api.object(of: .collection("42"))).request(),
            api.trackDownload(location).request(),
        ]

        #expect(UnsplashAPI.requestTimeout == .seconds(30))
        for request in requests {
            #expect(request.timeout == UnsplashAPI.requestTimeout, "\(request.url)")
        }
    }
}

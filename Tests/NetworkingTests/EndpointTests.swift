import Foundation
import HTTPTypes
import Networking
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct EndpointTests {
    let base = URL(string: "https://api.example.com")!

    @Test func onlyIdempotentMethodsAreIdempotent() throws {
        let idempotent: [HTTPRequest.Method] = [.get, .head, .put, .delete, .options, .trace]
        #expect(idempotent.allSatisfy { $0.isIdempotent })
        #expect(![HTTPRequest.Method.post, .patch, .connect].contains { $0.isIdempotent })
        // A method swift-http-types does not name is not known to be idempotent.
        #expect(try #require(HTTPRequest.Method("QUERY")).isIdempotent == false)
    }

    @Test(arguments: [
        ("https://api.example.com", "photos", "/photos"),
        ("https://api.example.com/", "/photos", "/photos"),
        ("https://api.example.com/v1", "photos/", "/v1/photos"),
        ("https://api.example.com/v1/", "/photos/abc", "/v1/photos/abc"),
        ("https://api.example.com/v1", "", "/v1"),
    ])
    func pathsJoinWithExactlyOneSlash(base: String, path: String, expected: String) throws {
        let url = try Endpoint<Data>(baseURL: URL(string: base)!, path: path).url()
        #expect(url.path == expected)
        #expect(!url.absoluteString.contains("//photos"))
    }

    @Test func pathSegmentsArePercentEncoded() throws {
        let url = try Endpoint<Data>(baseURL: base, path: "photos/a b?c").url()
        #expect(url.absoluteString == "https://api.example.com/photos/a%20b%3Fc")
    }

    @Test func queryValuesArePercentEncoded() throws {
        let endpoint = Endpoint<Data>(
            baseURL: base, path: "search",
            query: [
                ("q", "a b+c&d=e"), ("lang", "日本"), ("page", "2"),
            ])
        let url = try endpoint.url()
        #expect(url.query == "q=a%20b%2Bc%26d%3De&lang=%E6%97%A5%E6%9C%AC&page=2")
        let decoded = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems
        #expect(decoded?.first?.value == "a b+c&d=e")
        #expect(decoded?[1].value == "日本")
    }

    @Test func baseURLQueryIsKeptAndExtended() throws {
        let location = URL(string: "https://api.example.com/photos/abc/download?ixid=M3w1%3D")!
        let url = try Endpoint<Data>(baseURL: location, query: [("extra", "1")]).url()
        #expect(url.absoluteString == "https://api.example.com/photos/abc/download?ixid=M3w1%3D&extra=1")
        #expect(try Endpoint<Data>(url: location).url() == location)
    }

    @Test(arguments: ["mailto:someone@example.com", "file:///etc/passwd", "/relative/path", "https://"])
    func aBadURLIsAThrownError(text: String) throws {
        let url = try #require(URL(string: text))
        #expect(throws: NetworkError.self) { try Endpoint<Data>(baseURL: url).request() }
    }

    @Test func requestCarriesMethodHeadersAndJSONBody() throws {
        struct Body: Encodable, Sendable { let name: String }
        let endpoint = Endpoint<Data>(
            baseURL: base, path: "items", method: .post,
            headers: ["X-Trace": "1"], body: Body(name: "ü"), timeout: .seconds(12))
        let request = try endpoint.request()
        #expect(request.method == .post)
        #expect(request.headers["X-Trace"] == "1")
        #expect(request.headers["Content-Type"] == "application/json")
        #expect(request.headers["accept"] == "application/json")
        #expect(request.timeout == .seconds(12))
        #expect(request.body == Data(#"{"name":"ü"}"#.utf8))
    }

    @Test func aBodyThatCannotBeEncodedIsAThrownError() {
        struct Unencodable: Encodable, Sendable {
            func encode(to encoder: any Encoder) throws {
                throw EncodingError.invalidValue(0, .init(codingPath: [], debugDescription: "no"))
            }
        }
        #expect(throws: NetworkError.self) {
            try Endpoint<Data>(baseURL: base, method: .post, body: Unencodable()).request()
        }
    }
}

@Suite struct RedactionTests {
    @Test func secretQueryValuesAndUserInfoAreHidden() {
        let url = URL(string: "https://user:pw@api.example.com/photos?client_id=SECRET&page=2&access_token=T0K")!
        let text = Redaction.string(for: url)
        #expect(text == "https://api.example.com/photos?client_id=<redacted>&page=2&access_token=<redacted>")
        #expect(!text.contains("SECRET") && !text.contains("T0K") && !text.contains("pw"))
    }

    @Test func secretHeadersAreHidden() {
        let headers = Redaction.headers(["authorization": "Client-ID SECRET", "Accept": "application/json"])
        #expect(headers == ["authorization": "<redacted>", "Accept": "application/json"])
    }

    @Test func headersAreCaseInsensitive() {
        var headers = HTTPHeaders(["Content-Type": "text/plain"])
        #expect(headers["content-type"] == "text/plain")
        headers["CONTENT-TYPE"] = "image/jpeg"
        #expect(headers["Content-Type"] == "image/jpeg")
        #expect(headers.dictionary.count == 1)
    }
}

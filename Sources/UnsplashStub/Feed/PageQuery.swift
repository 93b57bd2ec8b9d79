import Foundation

/// `page` and `per_page` of a `GET /photos`, read as leniently as Unsplash reads them.
struct PageQuery: Sendable {
    static let defaultPerPage = 10
    static let maximumPerPage = 30

    /// 1-based; `page=0`, negative and unreadable values mean page 1.
    let page: Int
    /// Missing or unreadable values mean 10; larger than 30 is silently capped to 30.
    let perPage: Int
    /// The other parameters the client sent, kept for the `Link` URLs.
    let otherParameters: [(name: String, value: String)]

    init(parameters: [(name: String, value: String)]) {
        let page = parameters.last { $0.name == "page" }.flatMap { Int($0.value) } ?? 1
        let perPage = parameters.last { $0.name == "per_page" }.flatMap { Int($0.value) } ?? Self.defaultPerPage
        self.page = max(1, page)
        self.perPage = perPage < 1 ? Self.defaultPerPage : min(perPage, Self.maximumPerPage)
        // `client_id` is an access key: a Link header must never echo it.
        otherParameters = parameters.filter { !["page", "per_page", "client_id"].contains($0.name) }
    }

    /// The `Link` header Unsplash sends: absolute URLs with the query in alphabetical order;
    /// `first` and `prev` after page 1, `next` and `last` before the last page.
    /// Nil when there is nothing to link to (a single page, or an empty feed).
    func linkHeader(baseURL: URL, lastPage: Int, path: String = "/photos") -> String? {
        var relations: [(rel: String, page: Int)] = []
        if page > 1 {
            relations.append(("first", 1))
            relations.append(("prev", page - 1))
        }
        if page < lastPage {
            relations.append(("last", lastPage))
            relations.append(("next", page + 1))
        }
        guard !relations.isEmpty else { return nil }
        return
            relations
            .map { "<\(url(forPage: $0.page, baseURL: baseURL, path: path))>; rel=\"\($0.rel)\"" }
            .joined(separator: ", ")
    }

    func url(forPage page: Int, baseURL: URL, path: String = "/photos") -> String {
        let parameters = otherParameters + [("page", String(page)), ("per_page", String(perPage))]
        let query =
            parameters
            .enumerated()
            .sorted { ($0.element.name, $0.offset) < ($1.element.name, $1.offset) }
            .map { "\(Self.escape($0.element.name))=\(Self.escape($0.element.value))" }
            .joined(separator: "&")
        return baseURL.absoluteString + path + "?" + query
    }

    private static let queryValueCharacters = CharacterSet.urlQueryAllowed.subtracting(
        CharacterSet(charactersIn: "&=+#"))

    private static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: queryValueCharacters) ?? text
    }
}

import Hummingbird
import Logging
import PhotoStore

/// Whatever the gallery answers instead of what was asked, and the one place that answers it.
///
/// A route throws it; Hummingbird's router hands it to ``response(from:context:)``, which logs
/// what only the operator should read (the database's path and SQLite's words stay in the log)
/// and answers in the shape of the route asked: JSON `{"error": "..."}` under `/api/`, plain
/// text for `/healthz`, the problem page for the rest. The Unsplash-shaped routes answer their
/// own shape (``MirrorFailure``).
enum GalleryError: Error, Equatable, HTTPResponseError {
    /// A query parameter that is not what it must be; the text says which and why.
    case badParameter(String)
    /// A search not in the search syntax.
    case badSearch(String)
    /// `after` or `before` names no stored photo.
    case unknownAnchor(photoID: String)
    /// No such photo or image: the title and text of the answer.
    case notFound(title: String, message: String)
    /// The database could not be read: 503, the store's error only in the log.
    case unreadable(StoreError)
    /// A page's template did not render: 500, never an empty page.
    case renderingFailed(template: String)
    /// The image was stored again while its bytes were being sent: the answer is cut short.
    case imageChanged(photoID: String, variant: String)

    var status: HTTPResponse.Status {
        switch self {
        case .badParameter, .badSearch, .unknownAnchor: .badRequest
        case .notFound: .notFound
        case .unreadable: .serviceUnavailable
        case .renderingFailed, .imageChanged: .internalServerError
        }
    }

    /// What the answer says: never a file path or SQL.
    var message: String {
        switch self {
        case .badParameter(let text): text
        case .badSearch(let text):
            "the search '\(text)' cannot be understood: use words, \"quoted phrases\", prefix* and AND, OR, NOT"
        case .unknownAnchor(let photoID): "after and before must name a stored photo (got '\(photoID)')"
        case .notFound(_, let message): message
        case .unreadable: "the database cannot be read just now"
        case .renderingFailed: "this page could not be made"
        case .imageChanged(let photoID, let variant):
            "the \(variant) image of photo \(photoID) changed while it was sent"
        }
    }

    /// The problem page's heading.
    private var title: String {
        switch self {
        case .badParameter, .badSearch, .unknownAnchor: "Bad request"
        case .notFound(let title, _): title
        case .unreadable: "Unavailable"
        case .renderingFailed, .imageChanged: "Internal error"
        }
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        switch self {
        case .unreadable(let cause):
            // A read stopped because its client left is no fault of the database.
            let level: Logger.Level = if case .interrupted = cause { .debug } else { .error }
            context.logger.log(
                level: level, "the gallery cannot read the database",
                metadata: ["request": "\(request.uri.path)", "error": "\(cause.localizedDescription)"])
        case .renderingFailed(let template):
            context.logger.error(
                "a gallery template did not render",
                metadata: ["request": "\(request.uri.path)", "template": "\(template)"])
        case .badParameter, .badSearch, .unknownAnchor, .notFound, .imageChanged:
            break
        }
        let path = request.uri.path
        if path.hasPrefix("/api/") {
            return GalleryAnswer.json(status, APIProblem(error: message))
        }
        if path == "/healthz" {
            return GalleryAnswer.text(status, message + "\n")
        }
        let page = GalleryTemplates.shared.render(ProblemPage(title: title, message: message), withTemplate: "problem")
        return page.map { GalleryAnswer.html(status, $0) } ?? GalleryAnswer.text(status, message + "\n")
    }
}

/// What `/api/photos` answers when it cannot answer the photos: `{"error": "..."}`.
struct APIProblem: Encodable {
    var error: String
}

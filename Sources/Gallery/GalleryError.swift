/// What a request to the gallery got wrong, as a person can read it.
enum GalleryError: Error, Equatable {
    /// A query parameter that is not what it must be; the text says which and why.
    case badParameter(String)
    /// A search FTS5 cannot parse.
    case badSearch(String)
    /// The image was stored again while its bytes were being sent: the answer is cut short.
    case imageChanged(photoID: String, variant: String)

    var message: String {
        switch self {
        case .badParameter(let text): text
        case .imageChanged(let photoID, let variant):
            "the \(variant) image of photo \(photoID) changed while it was sent"
        case .badSearch(let text):
            "the search '\(text)' cannot be understood: use words, \"quoted phrases\", prefix* and AND, OR, NOT"
        }
    }
}

/// Which photos' full objects (`GET /photos/:id`: exif, location, tags...) the sync fetches,
/// the `photo_details` setting.
public enum PhotoDetailsMode: String, Sendable, CaseIterable {
    /// None: the mirror answers every `GET /photos/:id` with the list version.
    case none
    /// Those a client of the mirror asked for (`GET /unsplash/photos/:id`), at the sync's next
    /// round; one request per photo asked for.
    case onDemand = "on-demand"
    /// Every photo's, after its pages: one request per photo.
    case all

    /// The default: a photo's details cost a request only once someone asks for them, so a sync
    /// lists as many photos an hour as without them.
    public static let standard = PhotoDetailsMode.onDemand
}

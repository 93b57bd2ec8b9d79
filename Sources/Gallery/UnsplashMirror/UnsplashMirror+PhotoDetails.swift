import Foundation
import HTTPTypes
import Hummingbird
import PhotoStore

extension HTTPField.Name {
    /// Which version of a photo `GET /unsplash/photos/:id` answered: `full` (the object
    /// `GET /photos/:id` answers, as the sync stored it) or `summary` (the list version).
    static let xPhotosyncPhoto = Self("X-Photosync-Photo")!
}

extension UnsplashMirror {
    /// Which version of a photo the mirror answers with, as the `X-Photosync-Photo` header says.
    enum PhotoVersion: String {
        case full, summary
    }

    /// The photo `id` as `GET /photos/:id` answers it: its stored full object when there is one,
    /// else its list version, after recording that a client asked for its full object (for the
    /// sync's `photo_details: on-demand`); both rewritten as every listed photo is
    /// (``MirroredPhoto``). Nil when there is no such photo.
    func fullPhoto(id: String, _ request: MirrorRequest) async throws -> (body: Data, version: PhotoVersion)? {
        let images = try await storedImages([id])
        if let details = try await store.photoDetails.details(photoID: id),
            let body = request.photo.text(details.json, id: id, storedVariants: images[id] ?? [])
        {
            return (body, .full)
        }
        guard let json = try await store.catalog.originalJSON(photoIDs: [id])[id],
            let body = request.photo.text(json, id: id, storedVariants: images[id] ?? [])
        else { return nil }
        await requestDetails(id)
        return (body, .summary)
    }

    /// Records that a client asked for photo `id`'s full object; a failure is logged and
    /// changes nothing else: the answer is the summary either way.
    private func requestDetails(_ id: String) async {
        guard let requests = configuration.photoDetailsRequests else { return }
        do {
            _ = try await requests.record(photoID: id, at: configuration.now())
        } catch {
            logger.warning(
                "a photo details request could not be recorded", metadata: ["photo": "\(id)", "error": "\(error)"])
        }
    }
}

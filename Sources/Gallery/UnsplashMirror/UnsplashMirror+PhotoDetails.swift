import Foundation
import HTTPTypes
import Hummingbird
import PhotoStore

extension HTTPField.Name {
    /// Which version of a photo `GET /unsplash/photos/:id` (or `/photos/random` without
    /// `count`) answered: `full` (the object `GET /photos/:id` answers, as the sync stored it)
    /// or `summary` (the list version).
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
        try await requestDetails(id)
        return (body, .summary)
    }

    /// The drawn photos as `GET /photos/random` answers them: Unsplash answers full objects
    /// there, so each photo's stored full object when there is one, else its list version
    /// (nothing is recorded for `on-demand`: only `/photos/:id` asks), rewritten as
    /// ``fullPhoto(id:_:)`` rewrites them, in their order.
    func randomlyDrawn(_ photos: [OriginalJSONPage.Photo], _ request: MirrorRequest) async throws -> [(
        body: Data, version: PhotoVersion
    )] {
        let ids = photos.map(\.id)
        let images = try await storedImages(ids)
        let details = try await store.photoDetails.details(photoIDs: ids)
        return photos.compactMap { photo in
            let variants = images[photo.id] ?? []
            if let full = details[photo.id],
                let body = request.photo.text(full.json, id: photo.id, storedVariants: variants)
            {
                return (body, .full)
            }
            return request.photo.text(photo.json, id: photo.id, storedVariants: variants).map { ($0, .summary) }
        }
    }

    /// Records that a client asked for photo `id`'s full object, unless that is recorded already
    /// (``RecordedRequests``) or the sync fetches none (`photo_details: none`).
    /// - Throws: ``MirrorFailure/notRecorded`` when it cannot be recorded: the answer would
    ///   otherwise be a summary whose full object never comes.
    private func requestDetails(_ id: String) async throws(MirrorFailure) {
        guard let requests = configuration.photoDetailsRequests, !askedDetails.contains(id) else { return }
        do {
            if try await requests.record(photoID: id, at: configuration.now()) { askedDetails.insert(id) }
        } catch {
            logger.warning(
                "a photo details request could not be recorded", metadata: ["photo": "\(id)", "error": "\(error)"])
            throw .notRecorded
        }
    }
}

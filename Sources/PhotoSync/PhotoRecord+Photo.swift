import Foundation
import PhotoStore
import UnsplashAPI

extension PhotoRecord {
    /// The store's record of `photo`, with the URL of `variant` as its image source; without a
    /// variant, no image.
    package init(_ photo: Photo, variant: ImageVariant?) {
        self.init(
            id: photo.id,
            createdAt: photo.createdAt,
            updatedAt: photo.updatedAt,
            width: photo.width,
            height: photo.height,
            color: photo.color,
            blurHash: photo.blurHash,
            description: photo.description,
            altDescription: photo.altDescription,
            userUsername: photo.user?.username,
            userName: photo.user?.name,
            likes: photo.likes,
            isSponsored: photo.isSponsored,
            imageURL: variant.flatMap { photo.urls?[$0] },
            downloadLocation: photo.links?.downloadLocation,
            isPlus: photo.isPlus,
            json: photo.json)
    }
}

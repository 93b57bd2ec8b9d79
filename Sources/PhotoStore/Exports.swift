// The store speaks photosync's own values (`ImageVariant`, `PhotoSource`), declared in
// PhotosyncModel; its callers see them with the store, as UnsplashAPI's do with the API.
@_exported import PhotosyncModel

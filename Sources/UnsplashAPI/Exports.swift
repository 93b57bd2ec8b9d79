// The values photosync's modules share (`PhotoSource`, `ImageVariant`) are declared in
// PhotosyncModel, below the store and the API alike; this module's callers keep seeing them
// here, as Hummingbird re-exports the types its API speaks (its `Exports.swift`).
@_exported import PhotosyncModel

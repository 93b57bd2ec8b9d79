import Foundation
import Gallery
import PhotoStore
import PhotoSync

extension ServeCommand {
    /// Where the mirror records the photos whose full objects its clients ask for, when the
    /// sync fetches them (`photo_details`, read as `run` reads it, from the environment and the
    /// configuration file); nil for `none`, or when the database cannot be written, which is
    /// said once on stderr (the mirror then answers summaries until `run` fetches the details).
    func photoDetailsRequests(environment: [String: String], store: PhotoStore) throws(ConfigurationError)
        -> (any PhotoDetailsRequests)?
    {
        let mode = try SettingsResolver(environment: environment)
            .resolve(\.photoDetails, flags: [:], configPath: database.configPath)
        guard mode != .none else { return nil }
        do {
            return try store.storage.openPhotoDetailsRequests()
        } catch {
            let line = "photosync: photo details requests will not be recorded: \(error.localizedDescription)\n"
            FileHandle.standardError.write(Data(line.utf8))
            return nil
        }
    }
}

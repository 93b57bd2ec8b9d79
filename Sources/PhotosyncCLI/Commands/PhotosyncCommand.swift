import ArgumentParser

/// `photosync`: the root command.
public struct PhotosyncCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "photosync",
        abstract: "Mirror Unsplash's photo feed into an SQLite database (or PostgreSQL).",
        discussion: """
            photosync walks Unsplash's newest-first photo list page by page, downloads each photo's \
            image, and stores metadata and image bytes in one SQLite file. It can be stopped at any \
            moment and resumes where it left off.

            EXIT CODES
              0   success
              1   query: no photo with that id (or it has no stored image for --output);
                  retry: no photo with one of the ids given (nothing is requeued)
              64  bad usage, including no access key given anywhere
              65  verify: an image's bytes are not as recorded, or the file is damaged
              69  the Unsplash API stayed unreachable after retries (run --once)
              70  an internal error (a bug: please report it)
              73  run: another photosync run is writing this database (its PID is named);
                  export: the directory cannot be created or written; copy: the target
                  holds a mirror already, or run meets a copy not finished
              74  the database could not be opened, read or written, or a download could not
                  be written beside it (a full disk)
              75  run --once: some images are not stored yet (pending, or to retry after a
                  failure that may pass), or downloads or pages paused for free disk
                  (min_free_disk); any command: another program kept the database locked;
                  try again later
              77  Unsplash rejected the access key (HTTP 401), or PostgreSQL the login
              78  bad configuration (a setting, the configuration file, the access key file),
                  or an address that cannot be bound (--metrics-listen, serve --listen)
            """,
        version: PhotosyncVersion.text,
        subcommands: [
            RunCommand.self, QueryCommand.self, ListCommand.self, SearchCommand.self, ExportCommand.self,
            ServeCommand.self, DemoCommand.self, StatusCommand.self, VerifyCommand.self,
            RetryCommand.self, BackupCommand.self, CopyCommand.self,
        ]
    )

    public init() {}
}

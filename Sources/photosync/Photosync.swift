import PhotosyncCLI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@main
struct Photosync {
    /// Synchronous: the arguments are parsed before Swift's concurrency runtime and libdispatch's
    /// threads start, so `--help`, `--version` and a usage error never start them
    /// (``PhotosyncCommand/runFromCommandLine(_:)``).
    static func main() {
        // A write past RLIMIT_FSIZE (a file-size limit, such as a quota) raises SIGXFSZ, whose
        // default action kills the process without a word. Ignored, the write fails with EFBIG
        // instead, which the store reports as one `photosync:` line and exit 74, like a full disk.
        signal(SIGXFSZ, SIG_IGN)
        PhotosyncCommand.runFromCommandLine()
    }
}

import PhotosyncCLI

@main
struct Photosync {
    static func main() async {
        await PhotosyncCommand.runFromCommandLine()
    }
}

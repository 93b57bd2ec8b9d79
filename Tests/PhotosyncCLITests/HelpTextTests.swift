import ArgumentParser
import Testing

@testable import PhotosyncCLI

/// What `--help` prints is read by people: it must say what the source says, with nothing of
/// the source's own escaping left in it (a `\\` at a line's end in a multi-line string).
struct HelpTextTests {
    @Test func everyCommandsHelpHasNoStrayBackslashes() {
        for command in PhotosyncCommand.configuration.subcommands {
            let help = PhotosyncCommand.helpMessage(for: command, columns: 100)
            #expect(!help.contains("\\"), "photosync \(command.configuration.commandName ?? "") --help:\n\(help)")
        }
    }

    @Test func rootHelpHasNoStrayBackslashes() {
        #expect(!PhotosyncCommand.helpMessage(columns: 100).contains("\\"))
    }
}

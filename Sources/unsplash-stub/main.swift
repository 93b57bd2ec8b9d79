import ArgumentParser
import Foundation

// ArgumentParser's own `main()` prints usage after every error; a stub started by scripts and
// tests should fail with one line that says what is wrong.
do {
    let command = try ServeCommand.parse()
    try await command.serve()
} catch {
    let exitCode = ServeCommand.exitCode(for: error)
    if exitCode == .success {
        // --help: the full message is what was asked for.
        print(ServeCommand.fullMessage(for: error))
    } else {
        let message = ServeCommand.message(for: error)
            .split(whereSeparator: \.isNewline)
            .joined(separator: " ")
        FileHandle.standardError.write(Data("unsplash-stub: \(message)\n".utf8))
    }
    exit(exitCode.rawValue)
}

import ArgumentParser
import Foundation

extension PhotosyncCommand {
    /// Parses `arguments` and runs the chosen command, then exits with its status.
    ///
    /// What differs from argument-parser's `main()`: a usage error is one line,
    /// `photosync: <problem> (see 'photosync <command> --help')`, with the journal's error
    /// priority under systemd, like every other error, instead of `Error:` and a usage block.
    /// Help (`--help`, `help`) still prints in full to standard output, and exits 0.
    ///
    /// Synchronous until a command runs: parsing, help, `--version` and usage errors never start
    /// Swift's concurrency runtime or libdispatch's threads, which an `async` main starts before
    /// its first line (a test checks that `--help` creates no thread). A command's `run()` is
    /// then a task, and the main thread serves the main queue until the command exits.
    public static func runFromCommandLine(_ arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> Never {
        let command: any ParsableCommand
        do {
            command = try parseAsRoot(arguments)
        } catch {
            exit(reporting: error, arguments: arguments)
        }
        guard let asyncCommand = command as? any AsyncParsableCommand else {
            do {
                var command = command
                try command.run()
            } catch {
                exit(reporting: error, arguments: arguments)
            }
            Foundation.exit(0)
        }
        Task {
            var asyncCommand = asyncCommand
            do {
                try await asyncCommand.run()
            } catch {
                exit(reporting: error, arguments: arguments)
            }
            Foundation.exit(0)
        }
        dispatchMain()
    }

    private static func exit(reporting error: any Error, arguments: [String]) -> Never {
        let code = exitCode(for: error)
        if let exit = error as? ExitCode {
            // The command has already said why, on one line.
            Foundation.exit(exit.rawValue)
        }
        if code == .success {
            // --help, `photosync help ...`, or a command run without its subcommand.
            print(fullMessage(for: error))
            Foundation.exit(0)
        }
        ErrorReporting.printError("\(message(for: error)) (see '\(usageName(for: arguments)) --help')")
        Foundation.exit(code.rawValue)
    }

    /// `photosync <command>` when the arguments name a command, else `photosync`.
    private static func usageName(for arguments: [String]) -> String {
        let root = configuration.commandName ?? "photosync"
        guard let name = arguments.first,
            let command = configuration.subcommands.first(where: { $0.configuration.commandName == name })
        else { return root }
        return "\(root) \(command.configuration.commandName ?? name)"
    }
}

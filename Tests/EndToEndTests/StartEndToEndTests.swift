import Foundation
import Testing

/// What a command starts that does not need it (issue 54), through the real binary and glibc's
/// dynamic loader: under `LD_DEBUG=bindings,libs` the loader says when it hands control to the
/// program ("transferring control"), then names each C function the process calls for the
/// first time (the binary and the libraries bind their calls lazily). So the functions named
/// after that line are the ones the command called: a count of what ran, not of how long.
extension EndToEnd {
    @Suite(.serialized, .timeLimit(.minutes(2))) struct StartEndToEndTests {
        /// `--help`, `--version` and a usage error create no thread: they are answered before
        /// Swift's concurrency runtime and libdispatch start their threads (an `async` main
        /// starts them before its first line), and so before anything that would start
        /// SwiftNIO's event loops or a PostgreSQL connection.
        @Test(arguments: [["--help"], ["--version"], ["query", "--help"], ["query"]])
        func whatAnswersBeforeRunningStartsNoThread(_ arguments: [String]) async throws {
            let result = try await PhotosyncProcess.run(arguments, environment: ["LD_DEBUG": "bindings,libs"])
            #expect(result.status == (arguments == ["query"] ? 64 : 0), "\(result.stdout)")
            let called = Self.calledAfterStart(loaderLog: result.stderr)
            // The log is read as the loader writes it: the program's own first calls are there.
            #expect(called.contains("exit"), "\(called.sorted())")
            let startedAThread = called.contains("pthread_create")
            #expect(!startedAThread, "photosync \(arguments.joined(separator: " ")) started a thread")
        }

        /// The C functions named in a `LD_DEBUG=bindings,libs` log after control passed to the
        /// program.
        static func calledAfterStart(loaderLog: String) -> Set<String> {
            var started = false
            var called: Set<String> = []
            for line in loaderLog.split(separator: "\n") {
                if line.contains("transferring control:") {
                    started = true
                } else if started, let name = line.firstMatch(of: #/symbol `([^']+)'/#)?.1 {
                    called.insert(String(name))
                }
            }
            return called
        }
    }
}

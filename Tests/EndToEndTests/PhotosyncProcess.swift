import Foundation
import Synchronization
import TestSupport

/// The real `photosync` binary, run as a child process with a clean environment.
///
/// Its stderr arrives line by line through ``errorLines`` so a test can await the moment it wants
/// (for example the third stored page) instead of sleeping.
final class PhotosyncProcess: Sendable {
    private let process: Spawned
    private let stdout = OutputBuffer()
    private let stderr = OutputBuffer()
    private let stdoutDone: DispatchSemaphore
    private let stderrDone: DispatchSemaphore
    /// Each line the process writes to stderr, as it is written.
    let errorLines: AsyncStream<String>

    /// The built `photosync`, next to the test bundle.
    static var executable: URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if directory.pathExtension == "xctest" { directory.deleteLastPathComponent() }
        return directory.appending(path: "photosync")
    }

    /// Starts `photosync arguments...` with only `environment` (plus PATH) set. With `journal`,
    /// stderr looks like journald's stream to it: `JOURNAL_STREAM` names the pipe. A `launcher`
    /// (a program and its arguments, such as `prlimit --fsize=N`) runs photosync in its stead,
    /// so `pid` is the launcher's, which these launchers replace with photosync by exec. `program`
    /// runs another program instead of photosync, such as a script the package ships.
    init(
        _ arguments: [String], environment: [String: String] = [:], journal: Bool = false, launcher: [String] = [],
        program: URL = PhotosyncProcess.executable
    ) throws {
        var environment = ["PATH": "/usr/bin:/bin", "TZ": "UTC"].merging(environment) { $1 }
        let out = try Spawned.pipe()
        let err = try Spawned.pipe()
        if journal {
            var status = stat()
            fstat(err.write.fileDescriptor, &status)
            environment["JOURNAL_STREAM"] = "\(status.st_dev):\(status.st_ino)"
        }
        let null = try Spawned.open("/dev/null")
        let command = launcher.isEmpty ? [program.path] + arguments : launcher + [program.path] + arguments
        // Not the package's folder: what a run leaves in its working directory (a PostgreSQL
        // run's download spool, without STATE_DIRECTORY) must not land in the repository.
        process = try Spawned(
            command[0], Array(command.dropFirst()), environment: environment,
            directory: FileManager.default.temporaryDirectory.path, input: null.fileDescriptor,
            output: out.write.fileDescriptor, error: err.write.fileDescriptor)
        // The child has its copies: with the parent's closed, each read ends when the child's do.
        for handle in [null, out.write, err.write] { try? handle.close() }

        let (lines, lineSink) = AsyncStream.makeStream(of: String.self)
        errorLines = lines
        // Blocking reads on threads of their own: the concurrency pool has only a few.
        stdoutDone = Self.drain(out.read, into: stdout) { _ in }
        stderrDone = Self.drain(err.read, into: stderr) { lineSink.yield($0) }
        Thread.detachNewThread { [stderrDone] in
            stderrDone.wait()
            lineSink.finish()
        }
    }

    /// Runs `photosync arguments...` (or `program arguments...`) to the end.
    static func run(
        _ arguments: [String], environment: [String: String] = [:], journal: Bool = false, launcher: [String] = [],
        program: URL = PhotosyncProcess.executable
    ) async throws -> Result {
        let process = try PhotosyncProcess(
            arguments, environment: environment, journal: journal, launcher: launcher, program: program)
        return await process.result()
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        /// Standard output byte for byte, for binary output such as `query --output -`.
        var stdoutData = Data()
    }

    /// What the child wrote to stderr so far: for a test's message when it fails.
    var stderrSoFar: String { stderr.text }

    /// The child's process id.
    var pid: Int32 { process.pid }

    /// Whether the child has not exited yet.
    var isRunning: Bool { process.isRunning }

    /// Waits for the process to exit, and for its output to be read to the end. A test that is
    /// cancelled (its time limit passed) kills the process: a hung child fails its test instead
    /// of holding the whole run.
    func result() async -> Result {
        let status = await process.ending().status
        for await _ in errorLines {}
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { [stdoutDone] in
                stdoutDone.wait()
                stdoutDone.signal()
                continuation.resume()
            }
        }
        return Result(
            status: status, stdout: stdout.text,
            stderr: stderr.text, stdoutData: stdout.data)
    }

    /// Reads `handle` to its end on a thread of its own, handing on each complete line, then
    /// closes it: an ended child's pipe is no descriptor of the test process's any more.
    private static func drain(_ handle: FileHandle, into sink: OutputBuffer, line: @escaping @Sendable (String) -> Void)
        -> DispatchSemaphore
    {
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            var pending = Data()
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                sink.append(chunk)
                pending.append(chunk)
                while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    line(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                    pending.removeSubrange(pending.startIndex...newline)
                }
            }
            try? handle.close()
            done.signal()
        }
        return done
    }

    func signal(_ signal: Int32) {
        process.signal(signal)
    }

    /// Waits until a stderr line satisfies `predicate`; false if the process ended first.
    func awaitLine(_ predicate: (String) -> Bool) async -> Bool {
        for await line in errorLines where predicate(line) {
            return true
        }
        return false
    }
}

/// Bytes read from a pipe so far.
final class OutputBuffer: Sendable {
    private let bytes = Mutex(Data())
    func append(_ chunk: Data) { bytes.withLock { $0.append(chunk) } }
    var text: String { String(decoding: data, as: UTF8.self) }
    var data: Data { bytes.withLock { $0 } }
}

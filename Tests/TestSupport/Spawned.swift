import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A child process started with `posix_spawn`: how every test runs another program.
///
/// Not Foundation's `Process`, for two reasons found the hard way. Its `run()` lists
/// `/proc/self/fd` and copies each entry's whole 256-byte name, so once a test process holds
/// about 1,360 descriptors (the parallel tests' databases and sockets do) the last entry of its
/// 32 KiB buffer can end where readable memory does, and the whole test process dies of a
/// SIGSEGV. And its wait never saw `runuser` exit. Here the child gets no descriptor but the
/// three it is given (`posix_spawn_file_actions_addclosefrom_np`), so a copy of another test's
/// pipe or socket never keeps that one from reaching its end; and its exit is awaited by its
/// own pid alone.
public final class Spawned: Sendable {
    /// The child's process id: signals reach it only until it has been waited for.
    public let pid: pid_t

    private let state = Mutex(State())
    private let ended: Task<Ending, Never>
    /// Signalled once the child has ended and been reaped.
    private let reaped = DispatchSemaphore(value: 0)

    private struct State {
        /// Set once the child has ended, before it is reaped: until then its pid is its own.
        var exited = false
        var ending: Ending?
    }

    /// How the child ended: `status` is its exit code, or the signal that ended it.
    public struct Ending: Sendable {
        public var status: Int32
        public var bySignal: Bool
        /// Its peak resident memory in bytes, from the kernel's accounting of this one child.
        public var peakMemory: Int
    }

    /// Why a program could not be started, in one line.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts `program arguments...` with `environment` (this process's own when nil) in
    /// `directory` (this process's when nil), its standard input, output and error on the
    /// descriptors given (this process's own by default). The caller keeps its descriptors and
    /// closes them when it wants; the child has copies.
    public init(
        _ program: String, _ arguments: [String], environment: [String: String]? = nil, directory: String? = nil,
        input: Int32 = STDIN_FILENO, output: Int32 = STDOUT_FILENO, error: Int32 = STDERR_FILENO
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (descriptor, target) in [(input, STDIN_FILENO), (output, STDOUT_FILENO), (error, STDERR_FILENO)] {
            posix_spawn_file_actions_adddup2(&actions, descriptor, target)
        }
        guard let closeFrom = Self.closeFrom, closeFrom(&actions, 3) == 0 else {
            throw Failure(description: "cannot close the descriptors of \(program)'s process")
        }
        if let directory {
            guard let changeDirectory = Self.changeDirectory, changeDirectory(&actions, directory) == 0 else {
                throw Failure(description: "cannot start \(program) in \(directory)")
            }
        }
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        let envp = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
        defer { for variable in envp ?? [] { free(variable) } }
        var pid: pid_t = 0
        let spawned: Int32
        if let envp {
            spawned = posix_spawn(&pid, program, &actions, nil, argv, envp)
        } else {
            spawned = posix_spawn(&pid, program, &actions, nil, argv, environ)
        }
        guard spawned == 0 else {
            throw Failure(description: "cannot run \(program): \(String(cString: strerror(spawned)))")
        }
        self.pid = pid
        let (endings, sink) = AsyncStream.makeStream(of: Ending.self)
        ended = Task {
            for await ending in endings { return ending }
            return Ending(status: -1, bySignal: false, peakMemory: 0)
        }
        // A blocking wait on a thread of its own: the concurrency pool has only a few.
        Thread.detachNewThread { [self] in
            let ending = awaitEnd()
            reaped.signal()
            sink.yield(ending)
            sink.finish()
        }
    }

    /// Waits, without reaping, until the child has ended; marks it ended, so that ``signal(_:)``
    /// never reaches a later process with its pid; then reaps it.
    private func awaitEnd() -> Ending {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
        state.withLock { $0.exited = true }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let signaled = status & 0x7f != 0
        let ending = Ending(
            status: signaled ? status & 0x7f : (status >> 8) & 0xff, bySignal: signaled,
            peakMemory: usage.ru_maxrss * 1024)
        state.withLock { $0.ending = ending }
        return ending
    }

    /// Whether the child has not been seen to end yet.
    public var isRunning: Bool { state.withLock { !$0.exited } }

    /// Sends `signal` to the child, unless it has ended: its pid may be another process's by then.
    public func signal(_ signal: Int32) {
        state.withLock { state in
            if !state.exited { kill(pid, signal) }
        }
    }

    /// Waits for the child to end. A task cancelled while it waits (a test past its time limit)
    /// kills the child: a hung program fails its test instead of holding the whole run.
    public func ending() async -> Ending {
        await withTaskCancellationHandler {
            await ended.value
        } onCancel: {
            signal(SIGKILL)
        }
    }

    /// Waits for the child to end, blocking the calling thread: for code that runs on a thread of
    /// its own.
    public func waitUntilEnded() -> Ending {
        reaped.wait()
        reaped.signal()
        return state.withLock { $0.ending! }
    }

    /// A pipe whose ends are closed in every child but the one given an end: `read` and `write`.
    public static func pipe() throws -> (read: FileHandle, write: FileHandle) {
        var ends: [Int32] = [0, 0]
        guard Glibc.pipe(&ends) == 0 else {
            throw Failure(description: "pipe: \(String(cString: strerror(errno)))")
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (
            FileHandle(fileDescriptor: ends[0], closeOnDealloc: true),
            FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
        )
    }

    /// `path` opened for reading, or for writing (created, or emptied): for a child's standard
    /// input, output or error.
    public static func open(_ path: String, writing: Bool = false) throws -> FileHandle {
        let flags = writing ? O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC : O_RDONLY | O_CLOEXEC
        let descriptor = Glibc.open(path, flags, 0o600)
        guard descriptor >= 0 else {
            throw Failure(description: "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias AddChangeDirectory =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34), which Swift's Glibc module does
    /// not declare: every descriptor from the one given on is closed in the child.
    private static let closeFrom: AddCloseFrom? = symbol("posix_spawn_file_actions_addclosefrom_np")
    /// glibc's `posix_spawn_file_actions_addchdir_np` (2.29), undeclared as well.
    private static let changeDirectory: AddChangeDirectory? = symbol("posix_spawn_file_actions_addchdir_np")

    private static func symbol<Function>(_ name: String) -> Function? {
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), name).map { unsafeBitCast($0, to: Function.self) }
    }
}

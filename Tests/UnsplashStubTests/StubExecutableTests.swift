import Foundation
import TestSupport
import Testing
import UnsplashStub

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// MARK: - The executable

@Suite(.timeLimit(.minutes(5))) struct StubExecutableTests {
    @Test func printsItsAddressServesAndExitsZeroOnSIGTERM() async throws {
        let (process, output, _) = try Self.start(["--port", "0", "--photos", "12"])
        try await withTeardown(await Self.stop(process)) {
            let line = Self.firstLine(of: output)
            let match = try #require(
                line.wholeMatch(of: /unsplash-stub listening on (http:\/\/127\.0\.0\.1:\d+) \(12 photos\)/))
            let base = try #require(URL(string: String(match.1)))

            let answer = try await Client().get(URL(string: base.absoluteString + "/photos")!)
            #expect(answer.status == 200)
            #expect(answer.header("X-Total") == "12")

            process.signal(SIGTERM)
            let ending = await process.ending()
            #expect(ending.status == 0)
            #expect(!ending.bySignal)
        }
    }

    @Test func faultFlagsApplyFromTheFirstRequest() async throws {
        let (process, output, _) = try Self.start([
            "--port", "0", "--photos", "30", "--empty-page", "1", "--fail-every", "2", "--fail-status", "503",
        ])
        try await withTeardown(await Self.stop(process)) {
            let line = Self.firstLine(of: output)
            let match = try #require(
                line.wholeMatch(of: /unsplash-stub listening on (http:\/\/127\.0\.0\.1:\d+) \(30 photos\)/))
            let photos = try #require(URL(string: String(match.1) + "/photos"))

            let empty = try await Client().get(photos)
            let failed = try await Client().get(photos)
            let full = try await Client().get(photos)

            #expect(String(decoding: empty.body, as: UTF8.self) == "[]")
            #expect(failed.status == 503)
            #expect(try full.photoIDs().count == 10)
            process.signal(SIGTERM)
            #expect(await process.ending().status == 0)
        }
    }

    /// Kills the stub if a failed expectation left it running, and waits for it: a stub left
    /// behind holds the test run's output open, and the run never ends.
    static func stop(_ process: Spawned) async {
        process.signal(SIGKILL)
        _ = await process.ending()
    }

    @Test(arguments: [["--sponsored-every", "1"], ["--fail-rate", "2"]])
    func badArgumentsExit64WithOneLine(arguments: [String]) async throws {
        let (process, _, errors) = try Self.start(arguments, capturingErrors: true)

        #expect(await process.ending().status == 64)
        let message = String(decoding: try #require(errors).readDataToEndOfFile(), as: UTF8.self)
        #expect(message.hasPrefix("unsplash-stub: "))
        #expect(message.contains(arguments[0].dropFirst(2)))
        #expect(message.filter(\.isNewline).count == 1)
    }

    /// The built `unsplash-stub`, next to the test bundle.
    static func executable() throws -> URL {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if directory.pathExtension == "xctest" { directory.deleteLastPathComponent() }
        let binary = directory.appending(path: "unsplash-stub")
        try #require(
            FileManager.default.isExecutableFile(atPath: binary.path),
            "build the executable first: swift build --product unsplash-stub (looked in \(directory.path))")
        return binary
    }

    /// Starts the stub with `arguments`: the read end of its standard output, and of its
    /// standard error when `capturingErrors` (else it writes to the test's).
    static func start(_ arguments: [String], capturingErrors: Bool = false) throws
        -> (Spawned, output: FileHandle, errors: FileHandle?)
    {
        let output = try Spawned.pipe()
        let errors = capturingErrors ? try Spawned.pipe() : nil
        let process = try Spawned(
            try executable().path, arguments, output: output.write.fileDescriptor,
            error: errors?.write.fileDescriptor ?? STDERR_FILENO)
        for handle in [output.write, errors?.write].compactMap({ $0 }) { try? handle.close() }
        return (process, output.read, errors?.read)
    }

    static func firstLine(of handle: FileHandle) -> String {
        var data = Data()
        while !data.contains(UInt8(ascii: "\n")) {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            data.append(chunk)
        }
        return String(decoding: data.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
    }
}

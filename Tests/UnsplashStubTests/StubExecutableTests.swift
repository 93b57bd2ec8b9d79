import Foundation
import Testing
import UnsplashStub

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// MARK: - The executable

@Suite(.timeLimit(.minutes(3))) struct StubExecutableTests {
    @Test func printsItsAddressServesAndExitsZeroOnSIGTERM() async throws {
        let process = Process()
        process.executableURL = try Self.executable()
        process.arguments = ["--port", "0", "--photos", "12"]
        let output = Pipe()
        process.standardOutput = output
        let exited = Self.exitStatus(of: process)
        try process.run()

        let line = Self.firstLine(of: output.fileHandleForReading)
        let match = try #require(
            line.wholeMatch(of: /unsplash-stub listening on (http:\/\/127\.0\.0\.1:\d+) \(12 photos\)/))
        let base = try #require(URL(string: String(match.1)))

        let answer = try await Client().get(URL(string: base.absoluteString + "/photos")!)
        #expect(answer.status == 200)
        #expect(answer.header("X-Total") == "12")

        process.terminate()
        #expect(await exited.value == 0)
        #expect(process.terminationReason == .exit)
    }

    @Test func faultFlagsApplyFromTheFirstRequest() async throws {
        let process = Process()
        process.executableURL = try Self.executable()
        process.arguments = [
            "--port", "0", "--photos", "30", "--empty-page", "1", "--fail-every", "2", "--fail-status", "503",
        ]
        let output = Pipe()
        process.standardOutput = output
        let exited = Self.exitStatus(of: process)
        try process.run()
        let line = Self.firstLine(of: output.fileHandleForReading)
        let match = try #require(
            line.wholeMatch(of: /unsplash-stub listening on (http:\/\/127\.0\.0\.1:\d+) \(30 photos\)/))
        let photos = try #require(URL(string: String(match.1) + "/photos"))

        let empty = try await Client().get(photos)
        let failed = try await Client().get(photos)
        let full = try await Client().get(photos)

        #expect(String(decoding: empty.body, as: UTF8.self) == "[]")
        #expect(failed.status == 503)
        #expect(try full.photoIDs().count == 10)
        process.terminate()
        #expect(await exited.value == 0)
    }

    @Test(arguments: [["--sponsored-every", "1"], ["--fail-rate", "2"]])
    func badArgumentsExit64WithOneLine(arguments: [String]) async throws {
        let process = Process()
        process.executableURL = try Self.executable()
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        let exited = Self.exitStatus(of: process)
        try process.run()

        #expect(await exited.value == 64)
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
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

    static func exitStatus(of process: Process) -> Task<Int32, Never> {
        let (statuses, continuation) = AsyncStream.makeStream(of: Int32.self)
        process.terminationHandler = { continuation.yield($0.terminationStatus) }
        return Task {
            for await status in statuses { return status }
            return -1
        }
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

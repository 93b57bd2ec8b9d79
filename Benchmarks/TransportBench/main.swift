// Fetches every URL listed in a file through photosync's production transport
// (AsyncHTTPClientSession + Provider + BodySpool), N at a time, hashing each body with SHA-256
// as it arrives, exactly as `photosync run` fetches images. Prints one line:
//   transport-bench: <count> bodies, <bytes> bytes, <seconds> s
// Usage: transport-bench URL_FILE [CONCURRENCY]
import Foundation
import Networking

@main
struct TransportBench {
    static func main() async throws {
        let arguments = CommandLine.arguments
        guard arguments.count >= 2 else {
            FileHandle.standardError.write(Data("usage: transport-bench URL_FILE [CONCURRENCY]\n".utf8))
            exit(64)
        }
        let urls = try String(contentsOfFile: arguments[1], encoding: .utf8)
            .split(separator: "\n").compactMap { URL(string: String($0)) }
        let concurrency = arguments.count > 2 ? max(1, Int(arguments[2]) ?? 8) : 8
        let spoolDirectory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "transport-bench-\(getpid())")
        let spool = BodySpool(directory: spoolDirectory, maxBytes: Int64(Int32.max))
        try spool.prepare()
        let session = AsyncHTTPClientSession(configuration: .init(maxConnectionsPerHost: concurrency))
        let provider = Provider(session: session, retryPolicy: .none)

        let start = ContinuousClock.now
        let outcome: Result<Int64, any Error>
        do {
            outcome = .success(try await fetchAll(urls, concurrency: concurrency, provider, spool))
        } catch {
            outcome = .failure(error)
        }
        let elapsed = start.duration(to: .now)
        try await session.shutdown()
        try? FileManager.default.removeItem(at: spoolDirectory)
        let bytes: Int64
        switch outcome {
        case .success(let total):
            bytes = total
        case .failure(let error):
            FileHandle.standardError.write(Data("transport-bench: \(error)\n".utf8))
            exit(1)
        }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("transport-bench: \(urls.count) bodies, \(bytes) bytes, \(String(format: "%.3f", seconds)) s")
    }

    static func fetchAll(_ urls: [URL], concurrency: Int, _ provider: Provider, _ spool: BodySpool) async throws
        -> Int64
    {
        try await withThrowingTaskGroup(of: Int64.self) { group in
            var pending = urls[...]
            var total: Int64 = 0
            for _ in 0..<concurrency {
                guard let url = pending.popFirst() else { break }
                group.addTask { try await fetch(url, provider, spool) }
            }
            while let size = try await group.next() {
                total += size
                if let url = pending.popFirst() {
                    group.addTask { try await fetch(url, provider, spool) }
                }
            }
            return total
        }
    }

    static func fetch(_ url: URL, _ provider: Provider, _ spool: BodySpool) async throws -> Int64 {
        let body = try await provider.download(url, into: spool).value
        body.remove()
        return body.byteCount
    }
}

import Foundation

/// A response body as it arrives: an async sequence of chunks, read once.
///
/// Iteration throws a ``TransportError`` when the connection fails, or `CancellationError` when
/// the task is cancelled mid-body. A body that is not read to the end is abandoned when it is
/// released (the transport closes the connection).
public struct ResponseBody: AsyncSequence, Sendable {
    public typealias Element = Data

    public struct AsyncIterator: AsyncIteratorProtocol {
        fileprivate var nextChunk: () async throws -> Data?

        public mutating func next() async throws -> Data? {
            try await nextChunk()
        }
    }

    private let makeIterator: @Sendable () -> AsyncIterator

    /// A body read from `base`, each element turned into `Data` by `chunk`, and each error
    /// `base` throws by `mapError` (so a transport can speak ``TransportError``).
    public init<Base: AsyncSequence & Sendable>(
        _ base: Base,
        chunk: @escaping @Sendable (Base.Element) -> Data,
        mapError: @escaping @Sendable (any Error) -> any Error = { $0 }
    ) {
        makeIterator = {
            var iterator = base.makeAsyncIterator()
            return AsyncIterator {
                do {
                    return try await iterator.next().map(chunk)
                } catch {
                    throw mapError(error)
                }
            }
        }
    }

    /// A body read by the closures `makeNext` makes: one per iteration, each called until it
    /// returns nil.
    public init(makeNext: @escaping @Sendable () -> (() async throws -> Data?)) {
        makeIterator = { AsyncIterator(nextChunk: makeNext()) }
    }

    /// A body that is already in memory, as one chunk (none when empty).
    public init(_ data: Data) {
        makeIterator = {
            var pending: Data? = data.isEmpty ? nil : data
            return AsyncIterator {
                defer { pending = nil }
                return pending
            }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        makeIterator()
    }

    /// The whole body in memory.
    /// - Throws: ``NetworkError/bodyTooLarge(url:limit:declared:)`` past `limit` bytes, or what
    ///   the transport throws, as ``NetworkError/transport(_:url:)`` or
    ///   ``NetworkError/cancelled``.
    public func collect(upTo limit: Int, url: @autoclosure () -> String) async throws(NetworkError) -> Data {
        var data = Data()
        do {
            for try await chunk in self {
                guard data.count + chunk.count <= limit else {
                    throw NetworkError.bodyTooLarge(url: url(), limit: Int64(limit), declared: nil)
                }
                data.append(chunk)
            }
        } catch {
            throw NetworkError.wrapping(error, url: url())
        }
        return data
    }

    /// At most the first `count` bytes; the rest is not read. Failures give what arrived.
    public func prefix(upTo count: Int) async -> Data {
        var data = Data()
        do {
            for try await chunk in self {
                data.append(chunk.prefix(count - data.count))
                if data.count >= count { break }
            }
        } catch {}
        return data
    }
}

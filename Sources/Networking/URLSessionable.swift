import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The part of `URLSession` that ``Provider`` talks to, so tests can substitute a mock.
public protocol URLSessionable: Sendable {
    /// Loads the whole body into memory.
    func data(for request: URLRequest) async throws -> (Data, URLResponse)
    /// Streams the body to a temporary file and returns its location.
    /// The caller owns the file: it must move or delete it.
    func download(for request: URLRequest) async throws -> (URL, URLResponse)
}

extension URLSession: URLSessionable {
    // The protocol requirements are not satisfied by the `delegate:` variants with their default
    // argument, so forward explicitly (passing `delegate:` keeps these from calling themselves).
    public func data(for request: URLRequest) async throws -> (Data, URLResponse) {
        try await data(for: request, delegate: nil)
    }

    public func download(for request: URLRequest) async throws -> (URL, URLResponse) {
        try await download(for: request, delegate: nil)
    }
}

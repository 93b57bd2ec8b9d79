import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One HTTP exchange over a plain socket, read until the server closes the connection: it
/// shows exactly what the server sent, where URLSession would hide a short or overlong body
/// behind an error or its own framing, and whether the server ended the connection at all.
public struct RawHTTPExchange: Sendable {
    public let statusCode: Int
    public let headers: [(name: String, value: String)]
    /// Every byte after the head, up to the end of the connection; de-chunked when the answer
    /// was chunked.
    public let body: Data

    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// `GET url` over HTTP/1.1 with `Connection: close`, whose answer must end the connection.
    public static func get(_ url: URL, headers: [String: String] = [:]) async throws -> RawHTTPExchange {
        guard let host = url.host, let port = url.port else { throw Failure(description: "no host or port in \(url)") }
        var target = url.path.isEmpty ? "/" : url.path
        if let query = url.query { target += "?" + query }
        var request = "GET \(target) HTTP/1.1\r\nHost: \(host):\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "\r\n"
        let (exchange, closed) = try await send(request, host: host, port: UInt16(port))
        guard closed else { throw Failure(description: "the server kept the connection open for 30 s") }
        return exchange
    }

    /// Sends `request` as it is and reads until the server closes the connection or sends
    /// nothing for `silence` seconds; `closed` says which. Blocking socket calls run on a
    /// thread of their own, so they never hold up the concurrency pool.
    public static func send(
        _ request: String, host: String = "127.0.0.1", port: UInt16, silence: Int = 30
    ) async throws -> (exchange: RawHTTPExchange, closed: Bool) {
        let (data, closed) = try await sendUnparsed(request, host: host, port: port, silence: silence)
        return (try parse(data), closed)
    }

    /// As ``send(_:host:port:silence:)``, with what came back as bytes, which may be no answer
    /// at all: `request` may be a part of one.
    public static func sendUnparsed(
        _ request: String, host: String = "127.0.0.1", port: UInt16, silence: Int = 30
    ) async throws -> (received: Data, closed: Bool) {
        let bytes = Data(request.utf8)
        let received: Result<(Data, Bool), Failure> = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: exchange(host: host, port: port, request: bytes, silence: silence))
            }
        }
        return try received.get()
    }

    private static func exchange(host: String, port: UInt16, request: Data, silence: Int) -> Result<
        (Data, Bool), Failure
    > {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { return .failure(Failure(description: "socket: errno \(errno)")) }
        defer { close(socketFD) }
        // A hung server fails the test instead of hanging it.
        var timeout = timeval(tv_sec: silence, tv_usec: 0)
        setsockopt(socketFD, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        inet_pton(AF_INET, host, &address.sin_addr)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return .failure(Failure(description: "connect: errno \(errno)")) }
        let sent = request.withUnsafeBytes { Glibc.send(socketFD, $0.baseAddress, $0.count, 0) }
        guard sent == request.count else { return .failure(Failure(description: "send: errno \(errno)")) }

        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = recv(socketFD, &buffer, buffer.count, 0)
            if count > 0 {
                received.append(contentsOf: buffer[0..<count])
            } else if count == 0 || errno == ECONNRESET {
                return .success((received, true))
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                return .success((received, false))
            } else if errno != EINTR {
                return .failure(Failure(description: "recv: errno \(errno) after \(received.count) bytes"))
            }
        }
    }

    private static func parse(_ data: Data) throws -> RawHTTPExchange {
        guard let end = data.firstRange(of: Data("\r\n\r\n".utf8)) else {
            throw Failure(description: "no complete head in \(data.count) bytes")
        }
        let lines = String(decoding: data[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw Failure(description: "bad status line '\(lines[0])'")
        }
        let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var body = Data(data[end.upperBound...])
        if headers.contains(where: { $0.name.lowercased() == "transfer-encoding" && $0.value == "chunked" }) {
            body = try dechunk(body)
        }
        return RawHTTPExchange(statusCode: status, headers: headers, body: body)
    }

    private static func dechunk(_ data: Data) throws -> Data {
        var body = Data()
        var rest = data[...]
        while let lineEnd = rest.firstRange(of: Data("\r\n".utf8)) {
            let sizeText = String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self)
            guard let size = Int(sizeText.split(separator: ";")[0], radix: 16) else {
                throw Failure(description: "bad chunk size '\(sizeText)'")
            }
            if size == 0 { return body }
            let start = lineEnd.upperBound
            guard rest.distance(from: start, to: rest.endIndex) >= size + 2 else { break }
            body.append(rest[start..<rest.index(start, offsetBy: size)])
            rest = rest[rest.index(start, offsetBy: size + 2)...]
        }
        throw Failure(description: "chunked body ended without its last chunk after \(body.count) bytes")
    }
}

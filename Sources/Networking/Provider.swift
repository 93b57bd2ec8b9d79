import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Sends ``Endpoint``s through a ``URLSessionable`` and turns the answers into values or errors.
///
/// - Every request passes through the ``Interceptor``s in order, before sending and on arrival.
/// - Only 2xx answers succeed; any other status is ``NetworkError/unacceptableStatus(_:)``.
/// - Idempotent requests are retried as ``RetryPolicy`` says, waiting on the injected clock.
/// - Cancelling the calling task stops at once, also during a wait, and throws `CancellationError`.
public struct Provider: Sendable {
    public var session: any URLSessionable
    public var interceptors: [any Interceptor]
    public var retryPolicy: RetryPolicy
    public var clock: any Clock<Duration>
    /// The wall-clock time, for `Retry-After` dates.
    public var now: @Sendable () -> Date
    public var decoder: JSONDecoder
    public var encoder: JSONEncoder

    public init(
        session: any URLSessionable,
        interceptors: [any Interceptor] = [],
        retryPolicy: RetryPolicy = .standard,
        clock: any Clock<Duration> = ContinuousClock(),
        now: @escaping @Sendable () -> Date = Date.init,
        decoder: JSONDecoder = JSONDecoder(),
        encoder: JSONEncoder = JSONEncoder()
    ) {
        self.session = session
        self.interceptors = interceptors
        self.retryPolicy = retryPolicy
        self.clock = clock
        self.now = now
        self.decoder = decoder
        self.encoder = encoder
    }

    // MARK: - Decoded JSON

    /// Sends `endpoint` and decodes its JSON body.
    /// - Throws: ``NetworkError``, or `CancellationError` when the task is cancelled.
    public func request<Value: Decodable>(_ endpoint: Endpoint<Value>) async throws -> Value {
        try await response(endpoint).value
    }

    /// Sends `endpoint` and decodes its JSON body, keeping the status and headers.
    public func response<Value: Decodable>(_ endpoint: Endpoint<Value>) async throws -> Response<Value> {
        let request = try endpoint.urlRequest(encoder: encoder)
        let raw = try await send(request, idempotent: endpoint.method.isIdempotent)
        let url = Redaction.string(for: raw.url)
        guard !raw.value.isEmpty else { throw NetworkError.emptyBody(url: url) }
        do {
            return try raw.map(try decoder.decode(Value.self, from: raw.value))
        } catch let error as DecodingError {
            throw NetworkError.decoding(
                type: String(describing: Value.self), codingPath: error.codingPathDescription,
                reason: error.reason, url: url)
        }
    }

    // MARK: - Raw bytes

    /// Fetches `url` with GET and returns its body, for example an image.
    public func request(_ url: URL, headers: [String: String] = [:]) async throws -> Data {
        try await data(url, headers: headers).value
    }

    /// Fetches `url` with GET and returns its body with the status and headers.
    public func data(_ url: URL, headers: [String: String] = [:]) async throws -> Response<Data> {
        let request = try Endpoint<Data>(url: url, headers: headers).urlRequest(encoder: encoder)
        return try await send(request, idempotent: true)
    }

    /// Fetches `url` with GET, streaming the body into a temporary file rather than memory.
    ///
    /// The caller owns the returned file (``Response/value``) and must move or delete it. Files of
    /// failed attempts are deleted here.
    public func download(_ url: URL, headers: [String: String] = [:]) async throws -> Response<URL> {
        let request = try Endpoint<URL>(url: url, headers: headers).urlRequest(encoder: encoder)
        return try await perform(request, idempotent: true, load: session.download(for:)) { file in
            let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? NSNumber)?.int64Value ?? 0
            return (nil, size)
        } discard: { file in
            let prefix = (try? FileHandle(forReadingFrom: file)).flatMap { handle in
                defer { try? handle.close() }
                return try? handle.read(upToCount: NetworkError.bodyPrefixLimit)
            }
            try? FileManager.default.removeItem(at: file)
            return prefix ?? Data()
        }
    }

    // MARK: - The loop

    private func send(_ request: URLRequest, idempotent: Bool) async throws -> Response<Data> {
        try await perform(request, idempotent: idempotent, load: session.data(for:)) { data in
            (data, Int64(data.count))
        } discard: { data in
            data.prefix(NetworkError.bodyPrefixLimit)
        }
    }

    /// Sends `request` until it succeeds, fails for good, or the retry policy gives up.
    ///
    /// - Parameters:
    ///   - load: the session call that sends one attempt.
    ///   - describe: the body as interceptors see it, and its size.
    ///   - discard: releases a failed attempt's payload and returns the first bytes of its body.
    private func perform<Payload>(
        _ request: URLRequest,
        idempotent: Bool,
        load: (URLRequest) async throws -> (Payload, URLResponse),
        describe: (Payload) -> (body: Data?, byteCount: Int64),
        discard: (Payload) -> Data
    ) async throws -> Response<Payload> {
        let redactedURL = request.url.map(Redaction.string(for:)) ?? "-"
        var attempt = 1
        var waited = Duration.zero
        while true {
            try Task.checkCancellation()
            var outgoing = request
            for interceptor in interceptors {
                outgoing = try await interceptor.willSend(outgoing)
            }

            let failure: NetworkError
            let (outcome, duration) = await timed { await Result { try await load(outgoing) } }
            switch outcome {
            case .failure(let error):
                if Task.isCancelled || (error as? URLError)?.code == .cancelled || error is CancellationError {
                    throw CancellationError()
                }
                for interceptor in interceptors {
                    await interceptor.didFail(outgoing, error: error, duration: duration)
                }
                failure = .transport(error as? URLError ?? URLError(.unknown), url: redactedURL)

            case .success(let (payload, urlResponse)):
                guard let http = urlResponse as? HTTPURLResponse else {
                    _ = discard(payload)
                    throw NetworkError.transport(URLError(.badServerResponse), url: redactedURL)
                }
                let headers = HTTPHeaders(http.allHeaderFields.reduce(into: [:]) { fields, field in
                    fields["\(field.key)"] = "\(field.value)"
                })
                let (body, byteCount) = describe(payload)
                let exchange = Exchange(
                    request: outgoing, statusCode: http.statusCode, headers: headers,
                    body: body, byteCount: byteCount, duration: duration, attempt: attempt)
                do {
                    for interceptor in interceptors {
                        try await interceptor.didReceive(exchange)
                    }
                } catch {
                    _ = discard(payload)
                    throw error
                }
                if (200..<300).contains(http.statusCode) {
                    return Response(value: payload, statusCode: http.statusCode, headers: headers, url: http.url ?? request.url!)
                }
                failure = .unacceptableStatus(.init(
                    statusCode: http.statusCode, headers: headers, bodyPrefix: discard(payload), url: redactedURL))
            }

            guard idempotent, attempt < retryPolicy.maxAttempts, retryPolicy.isRetryable(failure),
                  let delay = nextDelay(after: failure, attempt: attempt),
                  waited + delay <= retryPolicy.maxTotalDelay
            else { throw failure }
            try await clock.sleep(for: delay)
            waited += delay
            attempt += 1
        }
    }

    /// The result of `work` and how long it took on ``clock``.
    private func timed<T>(_ work: () async -> T) async -> (T, Duration) {
        var result: T?
        let duration = await clock.measure { result = await work() }
        guard let result else { preconditionFailure("Clock.measure returned without running its work") }
        return (result, duration)
    }

    /// The wait before the next attempt, or nil when the server asks for more than the policy allows.
    private func nextDelay(after failure: NetworkError, attempt: Int) -> Duration? {
        if case .unacceptableStatus(let status) = failure,
           let value = status.headers["Retry-After"],
           let requested = RetryPolicy.retryAfter(value, now: now()) {
            return requested <= retryPolicy.maxDelay ? requested : nil
        }
        return retryPolicy.backoff(afterAttempt: attempt)
    }
}

/// A successful answer: the decoded value, or the raw body or file, with its status and headers.
public struct Response<Value> {
    public var value: Value
    public var statusCode: Int
    public var headers: HTTPHeaders
    /// The URL that answered, after any redirects.
    public var url: URL

    public init(value: Value, statusCode: Int, headers: HTTPHeaders, url: URL) {
        self.value = value
        self.statusCode = statusCode
        self.headers = headers
        self.url = url
    }

    public func map<T>(_ transform: @autoclosure () throws -> T) rethrows -> Response<T> {
        Response<T>(value: try transform(), statusCode: statusCode, headers: headers, url: url)
    }
}

extension Response: Sendable where Value: Sendable {}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

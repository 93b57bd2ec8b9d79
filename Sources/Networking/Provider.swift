import Foundation

/// Sends ``Endpoint``s through a ``URLSessionable`` and turns the answers into values or errors.
///
/// - Every request, and every redirect hop, passes through the ``Interceptor``s in order, before
///   sending and on arrival.
/// - Redirects are followed here, not by the session: each hop is checked against the endpoint's
///   ``RedirectPolicy``, and a ``Credential`` is attached only to hops on its own origin.
/// - Only 2xx answers succeed; any other status is ``NetworkError/unacceptableStatus(_:)``.
/// - Idempotent requests are retried as ``RetryPolicy`` says, waiting on the injected clock.
/// - Cancelling the calling task stops at once, also during a wait, and throws
///   ``NetworkError/cancelled``.
/// - Everything it throws is a ``NetworkError``.
public struct Provider: Sendable {
    public var session: any URLSessionable
    public var interceptors: [any Interceptor]
    public var retryPolicy: RetryPolicy
    public var clock: any Clock<Duration>
    /// The wall-clock time, for `Retry-After` dates.
    public var now: @Sendable () -> Date
    public var decoder: JSONDecoder
    public var encoder: JSONEncoder
    /// The largest body ``request(_:)-(Endpoint)``, ``response(_:)`` and ``data(_:headers:)`` read
    /// into memory; a larger one is ``NetworkError/bodyTooLarge(url:limit:declared:)``.
    public var maxBodyBytes: Int
    /// Awaited before a redirect that carries a ``Credential`` is followed, with the redirect
    /// answer. Such a hop is on the credential's own origin, so it is one more request against
    /// whatever that origin counts, as a retry is (``RetryPolicy/admitsRetry``): a caller that
    /// keeps a budget admits each one. What it throws ends the request with that error.
    public var admitsCredentialedHop: @Sendable (NetworkError.StatusFailure) async throws(NetworkError) -> Void =
        { _ in }

    public init(
        session: any URLSessionable,
        interceptors: [any Interceptor] = [],
        retryPolicy: RetryPolicy = .standard,
        clock: any Clock<Duration> = ContinuousClock(),
        now: @escaping @Sendable () -> Date = Date.init,
        decoder: JSONDecoder = JSONDecoder(),
        encoder: JSONEncoder = JSONEncoder(),
        maxBodyBytes: Int = 32 << 20
    ) {
        self.session = session
        self.interceptors = interceptors
        self.retryPolicy = retryPolicy
        self.clock = clock
        self.now = now
        self.decoder = decoder
        self.encoder = encoder
        self.maxBodyBytes = maxBodyBytes
    }

    // MARK: - Decoded JSON

    /// Sends `endpoint` and decodes its JSON body.
    public func request<Value: Decodable>(_ endpoint: Endpoint<Value>) async throws(NetworkError) -> Value {
        try await response(endpoint).value
    }

    /// Sends `endpoint` and has its type decode the body's bytes (see ``BodyDecodable``).
    public func request<Value: BodyDecodable>(_ endpoint: Endpoint<Value>) async throws(NetworkError) -> Value {
        try await response(endpoint).value
    }

    /// Sends `endpoint` and decodes its JSON body, keeping the status and headers.
    public func response<Value: Decodable>(_ endpoint: Endpoint<Value>) async throws(NetworkError) -> Response<Value> {
        try await response(endpoint) { body, decoder in try decoder.decode(Value.self, from: body) }
    }

    /// Sends `endpoint` and has its type decode the body's bytes (see ``BodyDecodable``).
    public func response<Value: BodyDecodable>(
        _ endpoint: Endpoint<Value>
    ) async throws(NetworkError) -> Response<Value> {
        try await response(endpoint) { body, decoder in try Value(body: body, decoder: decoder) }
    }

    private func response<Value>(
        _ endpoint: Endpoint<Value>, decode: (Data, JSONDecoder) throws -> Value
    ) async throws(NetworkError) -> Response<Value> {
        let raw = try await send(Outbound(endpoint, encoder: encoder))
        guard !raw.value.isEmpty else { throw .emptyBody(url: Redaction.string(for: raw.url)) }
        do {
            return try raw.map(try decode(raw.value, decoder))
        } catch let error as DecodingError {
            throw .decoding(
                type: String(describing: Value.self), codingPath: error.codingPathDescription,
                reason: error.reason, url: Redaction.string(for: raw.url))
        } catch {
            throw .decoding(
                type: String(describing: Value.self), codingPath: "", reason: "\(error)",
                url: Redaction.string(for: raw.url))
        }
    }

    // MARK: - Raw bytes

    /// Fetches `url` with GET and returns its body, for example an image.
    public func request(_ url: URL, headers: [String: String] = [:]) async throws(NetworkError) -> Data {
        try await data(url, headers: headers).value
    }

    /// Fetches `url` with GET and returns its body with the status and headers.
    public func data(_ url: URL, headers: [String: String] = [:]) async throws(NetworkError) -> Response<Data> {
        try await send(Outbound(Endpoint<Data>(url: url, headers: headers), encoder: encoder))
    }

    /// Fetches `url` with GET into `spool`: in memory when small, else in a private file, hashed as
    /// it arrives and checked against its `Content-Length` and the spool's size limit.
    ///
    /// When the body is in a file, the caller owns it and must ``SpooledBody/remove()`` it. Every
    /// failed attempt's file is removed here, whatever ended it.
    /// - Parameters:
    ///   - redirects: which hops to follow; nil follows up to 5 on the URL's own origin.
    ///   - minimumRate: the slowest the body may arrive (``TransportRequest/minimumRate``); nil
    ///     leaves it to the transport's default.
    /// - Throws: a ``NetworkError``: ``NetworkError/spool(_:)`` for a body that cannot be
    ///   written locally.
    public func download(
        _ url: URL, headers: [String: String] = [:], redirects: RedirectPolicy? = nil,
        minimumRate: MinimumRate? = nil, into spool: BodySpool
    ) async throws(NetworkError) -> Response<SpooledBody> {
        let endpoint = Endpoint<Data>(url: url, headers: headers, minimumRate: minimumRate, redirects: redirects)
        let outbound = try Outbound(endpoint, encoder: encoder)
        return try await perform(outbound) { body, headers, url throws(NetworkError) in
            let declared = headers["Content-Length"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) }
            return try await spool.receive(body, declaredLength: declared, url: url())
        } describe: { spooled in
            (nil, spooled.byteCount)
        } discard: { spooled in
            spooled.remove()
        }
    }

    // MARK: - The loop

    /// A request as ``perform(_:receive:describe:discard:)`` sends it, with what governs its hops.
    private struct Outbound {
        var request: TransportRequest
        var credential: Credential?
        var redirects: RedirectPolicy
        var idempotent: Bool

        init<Value>(_ endpoint: Endpoint<Value>, encoder: JSONEncoder) throws(NetworkError) {
            request = try endpoint.request(encoder: encoder)
            credential = endpoint.credential
            redirects = endpoint.redirects ?? .sameOrigin(as: Origin(request.url))
            idempotent = endpoint.method.isIdempotent
        }
    }

    private func send(_ outbound: Outbound) async throws(NetworkError) -> Response<Data> {
        try await perform(outbound) { body, _, url throws(NetworkError) in
            try await body.collect(upTo: maxBodyBytes, url: url())
        } describe: { data in
            (data, Int64(data.count))
        } discard: { _ in
        }
    }

    /// Sends `outbound` until it succeeds, fails for good, or the retry policy gives up.
    ///
    /// - Parameters:
    ///   - receive: reads a 2xx answer's body into the payload.
    ///   - describe: the body as interceptors see it, and its size.
    ///   - discard: releases a payload that an interceptor rejected.
    private func perform<Payload>(
        _ outbound: Outbound,
        receive: (ResponseBody, HTTPHeaders, () -> String) async throws(NetworkError) -> Payload,
        describe: (Payload) -> (body: Data?, byteCount: Int64),
        discard: (Payload) -> Void
    ) async throws(NetworkError) -> Response<Payload> {
        var attempt = 1
        var waited = Duration.zero
        while true {
            if Task.isCancelled { throw .cancelled }
            let failure: NetworkError
            switch try await exchange(
                outbound, attempt: attempt, receive: receive, describe: describe, discard: discard)
            {
            case .done(let response): return response
            case .failed(let error): failure = error
            }
            guard outbound.idempotent, attempt < retryPolicy.maxAttempts, retryPolicy.isRetryable(failure),
                let delay = nextDelay(after: failure, attempt: attempt),
                waited + delay <= retryPolicy.maxTotalDelay
            else { throw failure }
            do {
                try await clock.sleep(for: delay)
            } catch {
                throw .cancelled
            }
            try await retryPolicy.admitsRetry(failure)
            waited += delay
            attempt += 1
        }
    }

    /// What one attempt came to: an answer, or a failure the retry policy may want to try again.
    /// Failures no retry can mend (a refused redirect, an interceptor's error, a local spool
    /// error, cancellation) are thrown instead.
    private enum Outcome<Payload> {
        case done(Response<Payload>)
        case failed(NetworkError)
    }

    /// One attempt: the request and each redirect hop it is allowed, until an answer that is not
    /// a redirect.
    private func exchange<Payload>(
        _ outbound: Outbound,
        attempt: Int,
        receive: (ResponseBody, HTTPHeaders, () -> String) async throws(NetworkError) -> Payload,
        describe: (Payload) -> (body: Data?, byteCount: Int64),
        discard: (Payload) -> Void
    ) async throws(NetworkError) -> Outcome<Payload> {
        var request = outbound.request
        var hops = 0
        while true {
            var outgoing = request
            for interceptor in interceptors {
                outgoing = try await interceptor.willSend(outgoing)
            }
            outgoing = try authorize(outgoing, with: outbound.credential)
            // Redacted only when a message needs it: parsing a URL costs more than the request's
            // own bookkeeping, and almost every exchange succeeds.
            let sent = outgoing
            let url = { Redaction.string(for: sent.url) }

            let (step, duration) = await timed { () async -> Step<Payload> in
                await hop(outgoing, receive: receive, url: url)
            }

            switch step {
            case .noAnswer(let failure), .bodyFailed(let failure):
                if Task.isCancelled { throw .cancelled }
                switch failure {
                case .transport, .lengthMismatch: break
                case .cancelled, .spool, .bodyTooLarge, .invalidURL, .invalidRequest, .unacceptableStatus, .decoding,
                    .emptyBody, .foreignOrigin, .redirectRefused, .tooManyRedirects:
                    throw failure
                }
                for interceptor in interceptors {
                    await interceptor.didFail(outgoing, error: failure, duration: duration)
                }
                return .failed(failure)

            case .refused(let status, let headers, let prefix, _):
                let exchange = Exchange(
                    request: outgoing, statusCode: status, headers: headers, body: prefix,
                    byteCount: Int64(prefix.count), duration: duration, attempt: attempt)
                for interceptor in interceptors {
                    try await interceptor.didReceive(exchange)
                }
                if RedirectPolicy.redirectStatuses.contains(status), let location = headers["Location"] {
                    request = try redirect(outgoing, to: location, hops: &hops, outbound: outbound)
                    if outbound.credential != nil {
                        try await admitsCredentialedHop(
                            .init(statusCode: status, headers: headers, bodyPrefix: prefix, url: url()))
                    }
                    continue
                }
                return .failed(
                    .unacceptableStatus(.init(statusCode: status, headers: headers, bodyPrefix: prefix, url: url())))

            case .received(let payload, let headers, let status, let answeredURL):
                let (body, byteCount) = describe(payload)
                let exchange = Exchange(
                    request: outgoing, statusCode: status, headers: headers, body: body,
                    byteCount: byteCount, duration: duration, attempt: attempt)
                do throws(NetworkError) {
                    for interceptor in interceptors {
                        try await interceptor.didReceive(exchange)
                    }
                } catch {
                    discard(payload)
                    throw error
                }
                return .done(
                    Response(
                        value: payload, statusCode: status, headers: headers, url: answeredURL ?? outgoing.url))
            }
        }
    }

    /// Sends one hop and reads its answer as far as `receive` takes it.
    private func hop<Payload>(
        _ outgoing: TransportRequest,
        receive: (ResponseBody, HTTPHeaders, () -> String) async throws(NetworkError) -> Payload,
        url: @escaping () -> String
    ) async -> Step<Payload> {
        let head: ResponseHead
        let body: ResponseBody
        do {
            (head, body) = try await session.stream(for: outgoing)
        } catch {
            return .noAnswer(NetworkError.wrapping(error, url: url()))
        }
        let status = head.statusCode
        guard (200..<300).contains(status) else {
            let prefix = await body.prefix(upTo: NetworkError.bodyPrefixLimit)
            return .refused(status, head.headers, prefix, head.url)
        }
        do throws(NetworkError) {
            return .received(try await receive(body, head.headers, url), head.headers, status, head.url)
        } catch {
            return .bodyFailed(error)
        }
    }

    /// How far one hop got.
    private enum Step<Payload> {
        /// No HTTP answer at all.
        case noAnswer(NetworkError)
        /// A non-2xx answer, with the first bytes of its body.
        case refused(Int, HTTPHeaders, Data, URL?)
        /// A 2xx answer whose body was read into the payload.
        case received(Payload, HTTPHeaders, Int, URL?)
        /// A 2xx answer whose body failed mid-way or was refused.
        case bodyFailed(NetworkError)
    }

    /// Attaches `credential` to `request`, which must be on the credential's origin: the one
    /// place that decides where a secret header may go.
    private func authorize(
        _ request: TransportRequest, with credential: Credential?
    ) throws(NetworkError) -> TransportRequest {
        guard let credential else { return request }
        guard Origin(request.url) == credential.origin else {
            throw .foreignOrigin(url: Redaction.string(for: request.url), allowed: credential.origin.description)
        }
        var request = request
        request.headers[credential.headerName] = credential.headerValue
        return request
    }

    /// The request for the next hop after `outgoing` answered with a redirect to `location`, if
    /// the request's credential and redirect policy allow it.
    private func redirect(
        _ outgoing: TransportRequest, to location: String, hops: inout Int, outbound: Outbound
    ) throws(NetworkError) -> TransportRequest {
        let from = Redaction.string(for: outgoing.url)
        guard let target = URL(string: location, relativeTo: outgoing.url)?.absoluteURL,
            let targetOrigin = Origin(target)
        else {
            throw .redirectRefused(from: from, to: "an invalid Location", reason: "it is not an http(s) URL")
        }
        let to = Redaction.string(for: target)
        guard hops < outbound.redirects.maxHops else {
            throw .tooManyRedirects(url: Redaction.string(for: outbound.request.url), limit: outbound.redirects.maxHops)
        }
        if let credential = outbound.credential, targetOrigin != credential.origin {
            throw .redirectRefused(
                from: from, to: to,
                reason: "credentials go to \(credential.origin) only, and \(targetOrigin) is another origin")
        }
        if let reason = outbound.redirects.refusal(target) {
            throw .redirectRefused(from: from, to: to, reason: reason)
        }
        hops += 1
        var next = outbound.request
        next.url = target
        if Origin(outbound.request.url) != targetOrigin {
            for name in Redaction.secretHeaderNames {
                next.headers[name] = nil
            }
        }
        return next
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
            let requested = RetryPolicy.retryAfter(value, now: now())
        {
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

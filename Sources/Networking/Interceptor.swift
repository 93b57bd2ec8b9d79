import Foundation

/// Sees every request ``Provider`` sends and every answer it gets, in the order interceptors were
/// given; each attempt of a retried request passes through again.
///
/// Every method has a default implementation that does nothing, so an interceptor implements
/// only what it needs.
///
/// `willSend` sees a request before its ``Credential`` is attached; `didReceive` and `didFail`
/// see it as it was sent, credential included (``LoggingInterceptor`` redacts it).
public protocol Interceptor: Sendable {
    /// Called before a request is sent; returns the request to send (for example with a header
    /// added). Throwing cancels the request: the error reaches the caller unchanged.
    func willSend(_ request: TransportRequest) async throws(NetworkError) -> TransportRequest

    /// Called when an HTTP answer arrives, whatever its status, before it is validated.
    /// Throwing rejects the answer: the error reaches the caller unchanged and is not retried.
    func didReceive(_ exchange: Exchange) async throws(NetworkError)

    /// Called when a request got no HTTP answer at all, or lost it mid-body.
    func didFail(_ request: TransportRequest, error: NetworkError, duration: Duration) async
}

extension Interceptor {
    public func willSend(_ request: TransportRequest) async throws(NetworkError) -> TransportRequest { request }
    public func didReceive(_ exchange: Exchange) async throws(NetworkError) {}
    public func didFail(_ request: TransportRequest, error: NetworkError, duration: Duration) async {}
}

/// One request and the HTTP answer it got.
public struct Exchange: Sendable {
    public var request: TransportRequest
    public var statusCode: Int
    public var headers: HTTPHeaders
    /// The body, when it was loaded into memory; nil when it went to a file.
    public var body: Data?
    public var byteCount: Int64
    public var duration: Duration
    /// 1 for the first attempt, 2 for the first retry, ...
    public var attempt: Int

    public init(
        request: TransportRequest, statusCode: Int, headers: HTTPHeaders, body: Data?, byteCount: Int64,
        duration: Duration, attempt: Int
    ) {
        self.request = request
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.byteCount = byteCount
        self.duration = duration
        self.attempt = attempt
    }
}

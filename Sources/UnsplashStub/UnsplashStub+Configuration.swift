extension UnsplashStub {
    /// How a stub behaves. Fixed for its lifetime; tests change behaviour at run time through
    /// the stub's methods (`addPhotos`, `resetRateLimit`, the fault injections).
    public struct Configuration: Sendable, CustomStringConvertible, CustomDebugStringConvertible,
        CustomReflectable
    {
        /// The number of photos in the feed at start.
        public var photoCount: Int
        /// The IP address to listen on. The default is IPv4 loopback, not `localhost`, which may
        /// resolve to `[::1]` only and be missed by clients resolving it to 127.0.0.1.
        public var host: String
        /// 0 for an ephemeral port; `baseURL` reports the one bound.
        public var port: UInt16
        /// When set, API requests must carry `Authorization: Client-ID <accessKey>` (or
        /// `?client_id=<accessKey>`), or are answered 401. When nil, every request is authorized.
        public var accessKey: String?
        /// API requests allowed per window, reported as `X-Ratelimit-Limit`.
        public var rateLimit: Int
        /// The budget left at start; nil for a full budget (`rateLimit`).
        public var rateLimitRemaining: Int?
        /// The approximate size in bytes of a `regular` image; each photo varies it by up to ±50 %.
        public var imageSize: Int
        /// When set to N, every N-th slot of every page, from the first, holds an advertisement
        /// (a photo with a non-null `sponsorship`), as Unsplash's pages do. At least 2.
        public var sponsoredEvery: Int?
        /// Stubs with the same seed serve the same ids, photos and image bytes.
        public var seed: UInt64

        public init(
            photoCount: Int = 300,
            host: String = "127.0.0.1",
            port: UInt16 = 0,
            accessKey: String? = nil,
            rateLimit: Int = 5_000,
            rateLimitRemaining: Int? = nil,
            imageSize: Int = 20_000,
            sponsoredEvery: Int? = nil,
            seed: UInt64 = 0
        ) {
            self.photoCount = photoCount
            self.host = host
            self.port = port
            self.accessKey = accessKey
            self.rateLimit = rateLimit
            self.rateLimitRemaining = rateLimitRemaining
            self.imageSize = imageSize
            self.sponsoredEvery = sponsoredEvery
            self.seed = seed
        }

        /// Throws `UnsplashStubError.invalidConfiguration` naming the first invalid setting.
        public func validate() throws {
            func invalid(_ reason: String) -> UnsplashStubError { .invalidConfiguration(reason) }
            if photoCount < 0 { throw invalid("photo count must not be negative, got \(photoCount)") }
            if rateLimit < 0 { throw invalid("rate limit must not be negative, got \(rateLimit)") }
            if let remaining = rateLimitRemaining, remaining < 0 || remaining > rateLimit {
                throw invalid("remaining rate limit must be between 0 and \(rateLimit), got \(remaining)")
            }
            if imageSize < ImageGenerator.minimumSize {
                throw invalid("image size must be at least \(ImageGenerator.minimumSize) bytes, got \(imageSize)")
            }
            if let every = sponsoredEvery, every < 2 {
                throw invalid("sponsored-every must be at least 2, got \(every)")
            }
            if ListeningAddress(host: host, port: port) == nil {
                throw invalid("host must be an IPv4 or IPv6 address, got '\(host)'")
            }
        }

        // The access key is a credential: descriptions and mirrors say only whether one is set.

        public var description: String {
            "Configuration(photoCount: \(photoCount), host: \(host), port: \(port), "
                + "accessKey: \(accessKey == nil ? "nil" : "<redacted>"), rateLimit: \(rateLimit), "
                + "rateLimitRemaining: \(rateLimitRemaining.map(String.init) ?? "nil"), imageSize: \(imageSize), "
                + "sponsoredEvery: \(sponsoredEvery.map(String.init) ?? "nil"), seed: \(seed))"
        }

        public var debugDescription: String { description }

        public var customMirror: Mirror {
            Mirror(
                self,
                children: [
                    "photoCount": photoCount, "host": host, "port": port,
                    "accessKey": accessKey == nil ? "nil" : "<redacted>", "rateLimit": rateLimit,
                    "rateLimitRemaining": rateLimitRemaining as Any, "imageSize": imageSize,
                    "sponsoredEvery": sponsoredEvery as Any, "seed": seed,
                ],
                displayStyle: .struct)
        }
    }
}

import Foundation

/// Why a stub could not start.
public enum UnsplashStubError: Error, LocalizedError, Equatable {
    /// A configuration value is out of range; the text names it and the value given.
    case invalidConfiguration(String)
    /// `start()` was called on a stub that is running or starting.
    case alreadyStarted
    /// The listening socket could not be opened, e.g. the port is in use.
    case cannotListen(address: String, reason: String)

    public var errorDescription: String? {
        switch self {
        case .invalidConfiguration(let reason):
            "invalid configuration: \(reason)"
        case .alreadyStarted:
            "the stub is already running"
        case .cannotListen(let address, let reason):
            "cannot listen on \(address): \(reason)"
        }
    }
}

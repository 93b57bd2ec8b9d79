import Networking
import Testing

/// The proxy variables, read as curl reads them; a value that is not a proxy is refused, named
/// by its variable and never by its value.
@Suite struct ProxySettingsTests {
    @Test func aProxyIsAHostAndAPortWithOptionalCredentials() throws {
        let settings = try ProxySettings(environment: [
            "http_proxy": "http://user:pw@proxy.example:3128/", "https_proxy": "socks5://10.0.0.1",
        ])
        #expect(settings.http == .init(kind: .http, host: "proxy.example", port: 3128, credentials: "user:pw"))
        #expect(settings.https == .init(kind: .socks5, host: "10.0.0.1", port: 1080))
    }

    @Test(arguments: ["http//user:PASS@badhost", "http://proxy.example:3128/path", "proxy.example:3128?x=PASS"])
    func aMistypedProxyIsRefusedWithoutItsValue(value: String) {
        #expect {
            _ = try ProxySettings(environment: ["http_proxy": value])
        } throws: { error in
            guard let error = error as? ProxySettingsError, case .invalid(let variable, _) = error else { return false }
            return variable == "http_proxy" && error.errorDescription?.contains("PASS") == false
        }
    }
}

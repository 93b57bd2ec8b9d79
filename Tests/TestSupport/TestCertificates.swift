import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A certificate authority of a test's own, made with `openssl` as an operator makes one, and the
/// certificates it signs: a server's for `localhost` (and no address), a client's for a user;
/// and a second CA that signed none of them. In a folder of the test's own, readable by the
/// `postgres` user that runs the server; the keys are `0600`.
public struct TestCertificates: Sendable {
    public let folder: String
    public var authority: String { folder + "/ca.crt" }
    /// A CA that signed nothing here: a server's certificate does not verify against it.
    public var otherAuthority: String { folder + "/other-ca.crt" }
    public var serverCertificate: String { folder + "/server.crt" }
    public var serverKey: String { folder + "/server.key" }
    public var clientCertificate: String { folder + "/client.crt" }
    public var clientKey: String { folder + "/client.key" }

    /// Makes them; `user` is the client certificate's common name, which a `cert` rule of
    /// `pg_hba.conf` takes as the user's name.
    public static func make(clientUser user: String) throws -> TestCertificates {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("photosync-tls-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let certificates = TestCertificates(folder: folder)
        func openssl(_ arguments: [String]) throws { try PostgresTestCluster.run("/usr/bin/openssl", arguments) }
        func authority(_ name: String, _ subject: String) throws {
            try openssl([
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", subject,
                "-keyout", "\(folder)/\(name).key", "-out", "\(folder)/\(name).crt",
            ])
        }
        func signed(_ name: String, _ subject: String, extensions: String?) throws {
            try openssl([
                "req", "-newkey", "rsa:2048", "-nodes", "-subj", subject, "-keyout", "\(folder)/\(name).key",
                "-out", "\(folder)/\(name).csr",
            ])
            var arguments = [
                "x509", "-req", "-in", "\(folder)/\(name).csr", "-CA", certificates.authority, "-CAkey",
                "\(folder)/ca.key", "-CAcreateserial", "-days", "2", "-out", "\(folder)/\(name).crt",
            ]
            if let extensions {
                try extensions.write(toFile: "\(folder)/\(name).ext", atomically: false, encoding: .utf8)
                arguments += ["-extfile", "\(folder)/\(name).ext"]
            }
            try openssl(arguments)
        }
        try authority("ca", "/CN=photosync test CA")
        try authority("other-ca", "/CN=another CA")
        // For the name only: connecting by 127.0.0.1 is connecting to another name.
        try signed("server", "/CN=localhost", extensions: "subjectAltName=DNS:localhost\n")
        try signed("client", "/CN=\(user)", extensions: nil)
        for key in ["ca", "other-ca", "server", "client"] { chmod("\(folder)/\(key).key", 0o600) }
        try PostgresTestCluster.run("/bin/chown", ["postgres:postgres", certificates.serverKey])
        chmod(folder, 0o755)
        return certificates
    }

    /// A TCP port on 127.0.0.1 that no one listens on now.
    public static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw PostgresTestCluster.Failure(description: "no socket") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0 && getsockname(descriptor, socketAddress, &length) == 0
            }
        }
        guard bound else { throw PostgresTestCluster.Failure(description: "no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    public func remove() {
        try? FileManager.default.removeItem(atPath: folder)
    }
}

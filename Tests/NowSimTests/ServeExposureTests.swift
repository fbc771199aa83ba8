import Foundation
import NowSimTesting
import Testing

@testable import NowSim

/// What keeps a nowsim from being an open door: a non-loopback `--host` with the default credentials
/// is refused before anything is bound (nothing here listens on or sends to anything but loopback),
/// and `--max-connections` caps the connections served at once.
@Suite(.timeLimit(.minutes(5))) struct ServeExposureTests {
    private func nowsim(_ arguments: [String]) async throws -> SubprocessResult {
        try await Subprocess.run(NowSimTesting.NowSimInstance.binaryPath(), arguments, timeout: 120)
    }

    @Test(arguments: [
        ("127.0.0.1", true), ("127.1.2.3", true), ("localhost", true), ("::1", true), ("::ffff:127.0.0.1", true),
        ("0.0.0.0", false), ("::", false), ("10.0.0.1", false), ("192.0.2.1", false), ("::ffff:10.0.0.1", false),
        ("fe80::1", false),
    ])
    func loopbackAddressesAreRecognised(host: String, isLoopback: Bool) {
        #expect(ListenAddress.isLoopback(host: host) == isLoopback)
    }

    @Test func aHostNameIsLeftToTheListenAddressError() {
        #expect(ListenAddress.isLoopback(host: "example.com") == nil)
    }

    @Test(arguments: [
        ["--host", "0.0.0.0"],
        ["--host", "::"],
        ["--host", "0.0.0.0", "--user", "etl:s3cret:admin"],  // the default OAuth client is still in force
        ["--host", "0.0.0.0", "--oauth-client", "etl:s3cret"],  // and here the default user
        ["--host", "0.0.0.0", "--user", "admin:admin:itil", "--oauth-client", "etl:s3cret"],
    ])
    func aNonLoopbackHostWithDefaultCredentialsIsRefusedBeforeBinding(arguments: [String]) async throws {
        let result = try await nowsim(["serve", "--port", "0", "--quiet"] + arguments)
        #expect(result.status == 64, "\(result.output)")
        #expect(result.stderrText.contains("nowsim serve: refusing to listen on"), "\(result.output)")
        #expect(result.stderrText.contains("--allow-remote"))
        #expect(!result.output.contains("listening on"))
        #expect(!result.output.contains("seeded"))
    }

    /// The warning is printed before anything is bound; an unreadable certificate then stops the
    /// start, so the test never listens beyond loopback.
    @Test func allowRemoteServesWithALoudWarning() async throws {
        let missing = "/nonexistent/nowsim-test.pem"
        let result = try await nowsim([
            "serve", "--host", "0.0.0.0", "--port", "0", "--quiet", "--allow-remote", "--tls-cert", missing,
            "--tls-key", missing,
        ])
        #expect(result.status == 1, "\(result.output)")
        #expect(result.stderrText.contains("nowsim: WARNING: listening on 0.0.0.0, which is not a loopback address"))
        #expect(result.stderrText.contains("user admin/admin and OAuth client nowsim/nowsim"))
        #expect(result.stderrText.contains(missing), "\(result.output)")
    }

    @Test func ownCredentialsNeedNoFlag() async throws {
        let missing = "/nonexistent/nowsim-test.pem"
        let result = try await nowsim([
            "serve", "--host", "0.0.0.0", "--port", "0", "--quiet", "--user", "etl:s3cret:admin", "--oauth-client",
            "etl:s3cret", "--tls-cert", missing, "--tls-key", missing,
        ])
        #expect(result.status == 1, "\(result.output)")
        #expect(!result.stderrText.contains("WARNING"))
        #expect(!result.stderrText.contains("refusing"))
        #expect(result.stderrText.contains(missing), "\(result.output)")
    }

    @Test(arguments: [
        (["--max-connections", "0"], "--max-connections needs a number in 1…65536"),
        (["--max-connections", "4", "--threads", "8"], "--max-connections 4 is below --threads 8"),
    ])
    func badConnectionCapsAreUsageErrors(arguments: [String], message: String) async throws {
        let result = try await nowsim(["serve", "--port", "0", "--quiet"] + arguments)
        #expect(result.status == 64, "\(result.output)")
        #expect(result.stderrText.contains(message), "\(result.output)")
    }

    @Test func connectionsBeyondTheCapAreNotServed() async throws {
        try await withNowSim(arguments: ["--max-connections", "2", "--seed", "incident=3"]) { sim in
            let port = sim.port
            let held = try await offCooperativePool {
                try (0..<2).map { _ in
                    let socket = try LoopbackSocket(port: port)
                    try socket.send(Self.keepAliveRequest)
                    #expect(try socket.readStatusLine() == "HTTP/1.1 200 OK")
                    return socket
                }
            }
            let refused = try await offCooperativePool { () -> String in
                let third = try LoopbackSocket(port: port, timeoutSeconds: 5)
                try? third.send(Self.keepAliveRequest)
                return (try? third.readStatusLine()) ?? ""
            }
            #expect(refused == "", "a third connection was served: \(refused)")
            for socket in held { socket.close() }
            // The server notices the closes a little later (on a busy machine, much later): ask again
            // until it serves, within a bound that only a server that never frees the slots reaches.
            var status = 0
            for _ in 0..<600 where status != 200 {
                status = (try? await sim.request("/api/now/table/incident").status) ?? 0
                if status != 200 { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(status == 200, "the connections' slots were never freed")
        }
    }

    private static let keepAliveRequest =
        "GET /api/now/table/incident?sysparm_limit=1 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        + "Authorization: Basic \(Data("admin:admin".utf8).base64EncodedString())\r\n\r\n"
}

/// A TCP connection to 127.0.0.1 that stays open (``RawHTTPClient`` closes after each request).
private final class LoopbackSocket: @unchecked Sendable {
    // @unchecked: used by one test at a time, on one thread at a time.
    private var fd: Int32

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    init(port: Int, timeoutSeconds: Int = 30) throws {
        fd = try RawHTTPClient.connectLoopback(port: port, timeout: TimeInterval(timeoutSeconds))
    }

    deinit { close() }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let written = bytes[sent...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard written > 0 else { throw Failure(description: "write failed: errno \(errno)") }
            sent += written
        }
    }

    /// The first line of the answer; throws when the connection ends or times out first.
    func readStatusLine() throws -> String {
        var received: [UInt8] = []
        var byte: UInt8 = 0
        while received.last != UInt8(ascii: "\n") {
            let count = read(fd, &byte, 1)
            guard count == 1 else { throw Failure(description: "no answer (read \(count), errno \(errno))") }
            received.append(byte)
        }
        return String(decoding: received, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func close() {
        if fd >= 0 {
            Glibc.close(fd)
            fd = -1
        }
    }
}

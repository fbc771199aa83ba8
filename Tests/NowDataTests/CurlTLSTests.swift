import Foundation
import NowSimTesting
import Testing

@testable import NowData

/// The libcurl transport against nowsim over real TLS: a self-signed CA trusted through
/// `additionalCertificateAuthorities` (and refused without it), mutual TLS, and a CONNECT proxy.
///
/// HTTP/2 is asked for (`CURL_HTTP_VERSION_2TLS`) but cannot be tested here: libmicrohttpd speaks HTTP/1.1.
@Suite(.timeLimit(.minutes(5))) struct CurlTLSTests {
    static let seed = ["--seed", "incident=5", "--seed-value", "3"]

    static func configuration(_ sim: NowSimInstance, trust: TestCertificates?) -> NowServiceConfiguration {
        NowServiceConfiguration(
            instanceURL: sim.baseURL, authentication: .basic(username: "admin", password: "admin"),
            requestTimeout: 30, retryPolicy: .none,
            additionalCertificateAuthorities: trust.map { URL(fileURLWithPath: $0.caCertificate) })
    }

    @Test func selfSignedInstanceIsTrustedThroughTheExtraCA() async throws {
        let pki = try await TestCertificates.shared()
        try await withNowSim(arguments: pki.nowsimArguments() + Self.seed, scheme: "https") { sim in
            let service = NowTableService(configuration: Self.configuration(sim, trust: pki))
            let records = try await withDeadline(60) { try await service.records(from: "incident") }
            #expect(try records.decodeRecords().count == 5)
        }
    }

    @Test func selfSignedInstanceIsRefusedWithoutTheExtraCA() async throws {
        let pki = try await TestCertificates.shared()
        try await withNowSim(arguments: pki.nowsimArguments() + Self.seed, scheme: "https", logRequests: true) { sim in
            let service = NowTableService(configuration: Self.configuration(sim, trust: nil))
            do {
                _ = try await withDeadline(60) { try await service.records(from: "incident") }
                Issue.record("an untrusted certificate was accepted")
            } catch let error as NowDataError {
                guard case .network(.systemError(let underlying)) = error, let urlError = underlying as? URLError else {
                    Issue.record("expected a TLS URLError, got \(error)")
                    return
                }
                #expect(urlError.code == .serverCertificateUntrusted)
                #expect("\(error)".contains("TLS"), "\(error)")
                #expect("\(error)".contains("https://127.0.0.1:\(sim.port)"), "the message names the URL: \(error)")
                #expect(error.classification == .terminal, "a TLS trust failure does not go away by retrying")
            }
            #expect(sim.requestLog.isEmpty, "no request may be answered over an untrusted connection")
        }
    }

    @Test func mutualTLSNeedsTheClientCertificate() async throws {
        let pki = try await TestCertificates.shared()
        try await withNowSim(arguments: pki.nowsimArguments(requireClient: true) + Self.seed, scheme: "https") { sim in
            var withIdentity = Self.configuration(sim, trust: pki)
            withIdentity.clientCertificate = URL(fileURLWithPath: pki.clientCertificate)
            withIdentity.clientPrivateKey = URL(fileURLWithPath: pki.clientKey)
            let identified = NowTableService(configuration: withIdentity)
            let records = try await withDeadline(60) { try await identified.records(from: "incident") }
            #expect(try records.decodeRecords().count == 5)

            let anonymous = NowTableService(configuration: Self.configuration(sim, trust: pki))
            do {
                _ = try await withDeadline(60) { try await anonymous.records(from: "incident") }
                Issue.record("a client without a certificate was served")
            } catch let error as NowDataError {
                #expect(error.statusCode == 403, "\(error)")
                #expect(error.classification == .authentication)
            }
        }
    }

    @Test func proxyCarriesEveryRequestThroughOneReusedTunnel() async throws {
        let pki = try await TestCertificates.shared()
        let proxy = try ConnectProxy()
        defer { proxy.stop() }
        try await withNowSim(arguments: pki.nowsimArguments() + Self.seed, scheme: "https") { sim in
            var configuration = Self.configuration(sim, trust: pki)
            configuration.proxy = proxy.url
            let service = NowTableService(configuration: configuration)
            for _ in 0..<3 {
                let records = try await withDeadline(60) { try await service.records(from: "incident") }
                #expect(try records.decodeRecords().count == 5)
            }
            // Three sequential requests, one tunnel: the connection is kept and reused.
            #expect(proxy.tunnels == ["127.0.0.1:\(sim.port)"])
        }
    }

    /// Plain http is allowed to loopback only because it stays on this machine, so a proxy never gets it
    /// (the proxy here answers anything but CONNECT with 405: a request handed to it would fail).
    @Test func plainHTTPToLoopbackNeverGoesThroughAProxy() async throws {
        let proxy = try ConnectProxy()
        defer { proxy.stop() }
        try await withNowSim(arguments: Self.seed) { sim in
            var configuration = Self.configuration(sim, trust: nil)
            configuration.proxy = proxy.url
            let service = NowTableService(configuration: configuration)
            let records = try await withDeadline(60) { try await service.records(from: "incident") }
            #expect(try records.decodeRecords().count == 5)
            #expect(proxy.tunnels.isEmpty)
        }
    }

    @Test func connectionsPerHostAreCapped() async throws {
        let pki = try await TestCertificates.shared()
        let proxy = try ConnectProxy()
        defer { proxy.stop() }
        // Each answer takes 300 ms, so six requests started together overlap: without the cap they would
        // open up to six connections (tunnels); with maximumConnectionsPerHost 2 the rest wait for one.
        try await withNowSim(
            arguments: pki.nowsimArguments() + Self.seed, faults: ["delay:ms=300"], scheme: "https"
        ) { sim in
            var configuration = Self.configuration(sim, trust: pki)
            configuration.proxy = proxy.url
            configuration.maximumConnectionsPerHost = 2
            let service = NowTableService(configuration: configuration)
            try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<6 {
                    group.addTask {
                        try await withDeadline(120) {
                            try await service.records(from: "incident").decodeRecords().count
                        }
                    }
                }
                for try await count in group { #expect(count == 5) }
            }
            #expect((1...2).contains(proxy.tunnels.count), "\(proxy.tunnels)")
        }
    }
}

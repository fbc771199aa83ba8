import Foundation
import NowData
import Testing

/// When requests ask for gzip (``CompressedTransfer``): `auto` only off loopback. What nowsim sends
/// back is checked end to end in NowETLTests' `CompressedTransferTests`.
@Suite(.timeLimit(.minutes(1))) struct CompressedTransferTests {
    @Test(arguments: [
        ("localhost", false), ("LOCALHOST", false), ("127.0.0.1", false), ("127.9.8.7", false), ("::1", false),
        ("[::1]", false), ("acme.service-now.com", true), ("10.0.0.5", true), ("127.0.0.1.nip.io", true),
        ("128.0.0.1", true),
    ])
    func autoAsksOffLoopbackOnly(host: String, asks: Bool) {
        #expect(CompressedTransfer.automatic.asksForGzip(host: host) == asks)
        #expect(CompressedTransfer.always.asksForGzip(host: host))
        #expect(!CompressedTransfer.never.asksForGzip(host: host))
    }

    @Test func theDefaultIsAutoAndThePipelineSpellingsAreTheRawValues() throws {
        let configuration = NowServiceConfiguration(
            instanceURL: try #require(URL(string: "https://acme.service-now.com")),
            authentication: .basic(username: "u", password: "p"))
        #expect(configuration.compressedTransfer == .automatic)
        #expect(CompressedTransfer.allCases.map(\.rawValue) == ["auto", "always", "never"])
    }
}

import Foundation
import Testing

@testable import NowETL

/// SHA-256 against the NIST example vectors, the `sha256sum` tool, and itself fed in every chunking.
@Suite(.timeLimit(.minutes(5))) struct SinkSHA256Tests {
    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
        ),
    ])
    func nistVectors(message: String, digest: String) {
        #expect(SHA256.hash(Array(message.utf8)).hexString == digest)
    }

    @Test func oneMillionAs() {
        var hash = SHA256()
        let chunk = [UInt8](repeating: 0x61, count: 1_000)
        for _ in 0..<1_000 { hash.update(chunk) }
        #expect(hash.finalize().hexString == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    /// Lengths around the padding boundaries (55, 56, 63, 64 bytes) hashed in every split agree with
    /// one-shot hashing and with `sha256sum`.
    @Test func chunkingAndPaddingBoundariesAgreeWithSha256sum() async throws {
        var generator = SystemRandomNumberGenerator()
        for length in [1, 55, 56, 57, 63, 64, 65, 119, 120, 128, 1_000] {
            let message = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let expected = SHA256.hash(message)
            for split in [1, 7, 63, 64, 65] {
                var hash = SHA256()
                var offset = 0
                while offset < message.count {
                    let end = min(message.count, offset + split)
                    message[offset..<end].withUnsafeBytes { hash.update($0) }
                    offset = end
                }
                #expect(hash.finalize() == expected, "length \(length), chunks of \(split)")
            }
            let tool = try await SinkTestSupport.output("sha256sum", [], stdin: Data(message))
            #expect(String(decoding: tool.prefix(64), as: UTF8.self) == expected.hexString, "length \(length)")
        }
    }
}

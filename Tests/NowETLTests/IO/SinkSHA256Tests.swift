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

    /// Messages of 'a' around the padding boundaries (the length field fits after 55 bytes, not after
    /// 56; 64 is one whole block), against `sha256sum`'s answers.
    @Test(arguments: [
        (55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
        (56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
        (63, "7d3e74a05d7db15bce4ad9ec0658ea98e3f06eeecf16b4c6fff2da457ddc2f34"),
        (64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
        (65, "635361c48bb9eab14198e76ea8ab7f1a41685d6ad62aa9146d301d4f17eb0ae0"),
    ])
    func paddingBoundaryVectors(length: Int, digest: String) {
        #expect(SHA256.hash([UInt8](repeating: 0x61, count: length)).hexString == digest)
    }

    /// A hasher is a value: ``SHA256/finalizedCopy`` leaves it going on, and a copy hashes on without
    /// touching the original (and the other way round), though they share OpenSSL's context until then.
    @Test func copiesAndFinalizedCopiesAreIndependent() {
        var hash = SHA256()
        hash.update(Array("ab".utf8))
        let prefix = hash
        #expect(hash.finalizedCopy == SHA256.hash(Array("ab".utf8)))
        #expect(hash.finalizedCopy == SHA256.hash(Array("ab".utf8)))  // asking twice changes nothing
        hash.update(Array("c".utf8))
        #expect(hash.finalizedCopy.hexString == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        var other = prefix
        other.update(Array("x".utf8))
        #expect(other.finalize() == SHA256.hash(Array("abx".utf8)))
        #expect(prefix.finalizedCopy == SHA256.hash(Array("ab".utf8)))
        var spent = prefix
        _ = spent.finalize()
        #expect(prefix.finalizedCopy == SHA256.hash(Array("ab".utf8)), "finalizing a copy leaves the original")
        #expect(hash.finalize() == SHA256.hash(Array("abc".utf8)))
        #expect(SHA256().finalizedCopy.hexString == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    /// Copies used from several tasks at once (a journal hands verified prefixes to partition tasks).
    @Test func copiesHashOnConcurrently() async {
        var base = SHA256()
        base.update([UInt8](repeating: 7, count: 10_000))
        let shared = base
        let digests = await withTaskGroup(of: (Int, SHA256.Digest).self) { group in
            for index in 0..<8 {
                group.addTask {
                    var mine = shared
                    mine.update([UInt8(index)])
                    return (index, mine.finalize())
                }
            }
            return await group.reduce(into: [Int: SHA256.Digest]()) { $0[$1.0] = $1.1 }
        }
        for index in 0..<8 {
            #expect(digests[index] == SHA256.hash([UInt8](repeating: 7, count: 10_000) + [UInt8(index)]))
        }
        #expect(shared.finalizedCopy == SHA256.hash([UInt8](repeating: 7, count: 10_000)))
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

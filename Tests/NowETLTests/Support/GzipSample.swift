@testable import NowETL

/// The end of a byte stage in the gzip suites (SinkGzipTests, SinkGzipChunkTests): collects what the
/// stage writes, and counts its writes.
final class ByteCollector: ByteOutput {
    var bytes: [UInt8] = []
    var writes = 0
    func write(_ raw: UnsafeRawBufferPointer) throws {
        bytes.append(contentsOf: raw)
        writes += 1
    }
}

/// The gzip suites' input: text of `count` bytes from a fixed seed, with words of a table export (multi-byte
/// UTF-8, CR LF, CSV and XML specials) and some noise, so every run compresses the same bytes.
enum GzipSample {
    /// The first `count` bytes of the sample text.
    static func bytes(_ count: Int) -> [UInt8] {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var text: [UInt8] = []
        text.reserveCapacity(count)
        let words = ["incident", "INC0010001", "sys_id", "日本語", "caller", "\r\n", ",", "\"", "<&>"].map {
            Array($0.utf8)
        }
        while text.count < count {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            if state >> 62 == 0 {
                text.append(UInt8(truncatingIfNeeded: state >> 33))  // some noise
            } else {
                text.append(contentsOf: words[Int((state >> 33) % UInt64(words.count))])
            }
        }
        return Array(text.prefix(count))
    }
}

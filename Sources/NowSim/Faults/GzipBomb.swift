import CZlib
import Foundation

/// The body of the `gzip-bomb` fault: a gzip member that inflates to a chosen size, made once per
/// size and kept for the server's life.
///
/// It inflates to `{"result":[` + spaces + `]}` (valid JSON, an empty page), so a client that inflates
/// it without a limit ends up holding the whole size and then reads nothing. The spaces are deflated
/// in blocks of 1 MiB, each ended with a full flush: a full flush forgets the history, so every block
/// compresses to the same bytes, which are then repeated instead of compressed again; building a
/// 1 GiB bomb (about 1 MB of gzip) costs a few milliseconds. The CRC-32 of the repeats is combined
/// arithmetically (`crc32_combine`).
enum GzipBomb {
    /// What the body inflates to before and after the spaces.
    static let prefix = Array(#"{"result":["#.utf8)
    static let suffix = Array("]}".utf8)
    private static let blockSize = 1 << 20

    private static let cache = Cache()

    /// The gzip body inflating to `size` bytes (at least the prefix and suffix), or `nil` when zlib fails.
    static func body(inflatingTo size: Int) -> [UInt8]? {
        cache.body(size)
    }

    /// Builds the gzip member (RFC 1952) inflating to `size` bytes.
    static func make(inflatingTo size: Int) -> [UInt8]? {
        var deflater = Deflater()
        guard deflater.start() else { return nil }
        defer { deflater.end() }
        let spaces = max(0, size - prefix.count - suffix.count)
        let block = [UInt8](repeating: 0x20, count: min(blockSize, spaces))
        let blocks = block.isEmpty ? 0 : spaces / block.count
        let tail = [UInt8](repeating: 0x20, count: spaces - blocks * block.count) + suffix

        // The header: magic, deflate, no flags, no time, best compression, Unix.
        var output: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0, 0, 0, 0, 0x02, 0x03]
        guard let head = deflater.run(prefix, flush: Z_FULL_FLUSH) else { return nil }
        output += head
        var crc = checksum(prefix)
        let blockCRC = checksum(block)
        var previous: [UInt8]?
        var repeating = false
        for _ in 0..<blocks {
            if repeating, let previous {
                output += previous
            } else {
                guard let compressed = deflater.run(block, flush: Z_FULL_FLUSH) else { return nil }
                repeating = compressed == previous
                previous = compressed
                output += compressed
            }
            crc = crc32_combine(crc, blockCRC, off_t(block.count))
        }
        guard let end = deflater.run(tail, flush: Z_FINISH) else { return nil }
        output += end
        crc = crc32_combine(crc, checksum(tail), off_t(tail.count))
        let total = UInt32(truncatingIfNeeded: prefix.count + blocks * block.count + tail.count)
        for value in [UInt32(truncatingIfNeeded: crc), total] {
            output += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
        }
        return output
    }

    private static func checksum(_ bytes: [UInt8]) -> uLong {
        bytes.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) }
    }

    /// One raw deflate stream (no zlib or gzip wrapper: the header and trailer are written above).
    private struct Deflater {
        var stream = z_stream()

        mutating func start() -> Bool {
            nowetl_deflate_init2(&stream, 9, Z_DEFLATED, -15, 9, Z_DEFAULT_STRATEGY) == Z_OK
        }

        mutating func end() {
            deflateEnd(&stream)
        }

        /// Deflates all of `input` and flushes with `flush`; the bytes produced, or `nil` on an error.
        mutating func run(_ input: [UInt8], flush: Int32) -> [UInt8]? {
            var produced: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 64 << 10)
            var input = input
            return input.withUnsafeMutableBufferPointer { source -> [UInt8]? in
                stream.next_in = source.baseAddress
                stream.avail_in = uInt(source.count)
                while true {
                    let (status, room) = buffer.withUnsafeMutableBufferPointer { target -> (Int32, uInt) in
                        stream.next_out = target.baseAddress
                        stream.avail_out = uInt(target.count)
                        let status = deflate(&stream, flush)
                        return (status, stream.avail_out)
                    }
                    guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else { return nil }
                    produced += buffer[0..<(buffer.count - Int(room))]
                    if flush == Z_FINISH ? status == Z_STREAM_END : (stream.avail_in == 0 && room > 0) {
                        stream.next_in = nil
                        return produced
                    }
                }
            }
        }
    }

    /// Bodies made so far, by size; concurrent requests for a size not made yet wait for the first.
    private final class Cache: @unchecked Sendable {
        // @unchecked: `bodies` is only touched under `lock`.
        private let lock = NSLock()
        private var bodies: [Int: [UInt8]] = [:]

        func body(_ size: Int) -> [UInt8]? {
            lock.withLock {
                if let made = bodies[size] { return made }
                guard let made = GzipBomb.make(inflatingTo: size) else { return nil }
                bodies[size] = made
                return made
            }
        }
    }
}

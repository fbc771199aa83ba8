import NowQuery

/// The 128 bits of a sys_id nowsim generates, written as the 32 lowercase hex digits of a ``SysID``
/// (ref §5).
///
/// Not the shared `SysID` (NowQuery's text form, which the Table API sends and stores): the seeder
/// draws these from its random stream and appends their hex straight into row bytes.
struct SysIDBits: Sendable, Hashable {
    /// The first 64 bits (the first 16 hex digits).
    var high: UInt64
    /// The last 64 bits.
    var low: UInt64

    /// Appends the 32 lowercase hex digits.
    func append(to bytes: inout [UInt8]) {
        Self.appendHex(high, to: &bytes)
        Self.appendHex(low, to: &bytes)
    }

    /// The 32 lowercase hex digits.
    var string: SysID {
        String(unsafeUninitializedCapacity: 32) { buffer in
            Self.writeHex(high, into: buffer, at: 0)
            Self.writeHex(low, into: buffer, at: 16)
            return 32
        }
    }

    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    private static func appendHex(_ value: UInt64, to bytes: inout [UInt8]) {
        var shift: UInt64 = 60
        while true {
            bytes.append(digits[Int((value >> shift) & 0xF)])
            if shift == 0 { break }
            shift -= 4
        }
    }

    private static func writeHex(_ value: UInt64, into buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int) {
        for index in 0..<16 {
            buffer[offset + index] = digits[Int((value >> UInt64(60 - 4 * index)) & 0xF)]
        }
    }
}

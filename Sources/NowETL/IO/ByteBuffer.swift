import NowQuery

/// A growable byte buffer with the appends the format encoders need (UTF-8 text, integers, dates),
/// none of which allocates once the buffer has its capacity.
struct ByteBuffer {
    private(set) var bytes: [UInt8]

    /// Creates an empty buffer with room for `capacity` bytes.
    init(capacity: Int) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// The number of bytes held.
    var count: Int { bytes.count }

    /// Appends one byte.
    @inline(__always) mutating func append(_ byte: UInt8) {
        bytes.append(byte)
    }

    /// Appends raw bytes.
    mutating func append(_ raw: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: raw)
    }

    /// Appends bytes.
    mutating func append(_ other: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: other)
    }

    /// Appends bytes.
    mutating func append(_ other: [UInt8]) {
        bytes.append(contentsOf: other)
    }

    /// Appends the UTF-8 of a string.
    mutating func append(utf8 text: String) {
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { bytes.append(contentsOf: $0) }
        if done == nil { bytes.append(contentsOf: text.utf8) }
    }

    /// Appends an integer in decimal (`-42`).
    mutating func appendInteger(_ value: Int) {
        if value < 0 {
            bytes.append(0x2D)
            // Int.min has no positive counterpart; its magnitude fits in UInt.
            appendUnsigned(UInt(bitPattern: 0 &- value))
        } else {
            appendUnsigned(UInt(value))
        }
    }

    private mutating func appendUnsigned(_ value: UInt) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes ≥ 20 digits
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { raw in
            repeat {
                raw[23 - count] = UInt8(48 + rest % 10)
                rest /= 10
                count += 1
            } while rest > 0
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[(24 - count)...]))
        }
    }

    /// Appends a backslash and `byte` (a JSON escape such as `\n`).
    @inline(__always) mutating func append(escape byte: UInt8) {
        bytes.append(0x5C)
        bytes.append(byte)
    }

    /// Appends a JSON `\uXXXX` escape.
    mutating func appendUnicodeEscape(_ unit: UInt16) {
        bytes.append(0x5C)
        bytes.append(0x75)
        for shift in stride(from: 12, through: 0, by: -4) {
            let nibble = UInt8((unit >> UInt16(shift)) & 0x0F)
            bytes.append(nibble < 10 ? 48 + nibble : 87 + nibble)
        }
    }

    /// Appends a date as `yyyy-MM-dd`.
    mutating func appendDate(daysSinceEpoch days: Int) {
        TableAPIDateFormat.append(day: days, to: &bytes)
    }

    /// Appends an instant as `yyyy-MM-dd HH:mm:ss` (UTC).
    mutating func appendDateTime(secondsSinceEpoch seconds: Int) {
        TableAPIDateFormat.append(dateTime: seconds, to: &bytes)
    }

    /// Appends `seconds` since 1970-01-01 00:00:00 UTC as `yyyy-MM-ddTHH:mm:ssZ` (ISO 8601, UTC).
    mutating func appendISO8601DateTime(secondsSinceEpoch seconds: Int) {
        let start = bytes.count
        TableAPIDateFormat.append(dateTime: seconds, to: &bytes)
        if let space = bytes[start...].firstIndex(of: 0x20) { bytes[space] = UInt8(ascii: "T") }
        bytes.append(UInt8(ascii: "Z"))
    }

    /// Appends `seconds` as a date-time in `format`.
    mutating func appendDateTime(secondsSinceEpoch seconds: Int, format: DateTimeFormat) {
        switch format {
        case .instance: appendDateTime(secondsSinceEpoch: seconds)
        case .iso8601: appendISO8601DateTime(secondsSinceEpoch: seconds)
        }
    }

    /// Inserts one byte at `index` (an offset from the start), moving the bytes after it.
    mutating func insert(_ byte: UInt8, at index: Int) {
        bytes.insert(byte, at: index)
    }

    /// Removes all bytes, keeping the capacity.
    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
    }

    /// Calls `body` with the bytes.
    func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try bytes.withUnsafeBytes(body)
    }
}

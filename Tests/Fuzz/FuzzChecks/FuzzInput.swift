/// Reads choices and values off fuzz input bytes, deterministically: the same bytes give the same
/// rows and options, so a crash input replays exactly. Past the end every read gives zero or empty.
struct FuzzInput {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Whether every byte was read.
    var isAtEnd: Bool { position >= bytes.count }

    /// The next byte (0 past the end).
    mutating func byte() -> UInt8 {
        guard position < bytes.count else { return 0 }
        defer { position += 1 }
        return bytes[position]
    }

    /// One of `choices`, picked by the next byte.
    mutating func pick<T>(_ choices: [T]) -> T {
        choices[Int(byte()) % choices.count]
    }

    /// A number in `0..<bound` from the next byte.
    mutating func below(_ bound: Int) -> Int {
        Int(byte()) % bound
    }

    /// An integer from the next eight bytes (little-endian), small ones made likely by the first.
    mutating func integer() -> Int {
        let width = Int(byte() % 9)
        var value: UInt64 = 0
        for shift in 0..<width { value |= UInt64(byte()) << (8 * UInt64(shift)) }
        return Int(truncatingIfNeeded: value)
    }

    /// Text from a length byte and that many bytes (invalid UTF-8 repaired to U+FFFD, as a `String`
    /// from the network would be).
    mutating func text() -> String {
        let length = Int(byte())
        let end = min(bytes.count, position + length)
        let slice = position < end ? bytes[position..<end] : []
        position = max(position, end)
        return String(decoding: slice, as: UTF8.self)
    }
}

/// A malformed encoded query: what is wrong and where.
///
/// ``offset`` counts **UTF-8 bytes** from the start of the parsed text (0-based), so it is exact
/// for any input and cheap to compute; for the ASCII queries one meets in practice it equals the
/// character offset. The ``description`` reads
/// `invalid encoded query at offset 12: unknown operator in "priorityXX2"`.
public struct EncodedQueryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, without the position (`unknown operator in "priorityXX2"`).
    public var message: String
    /// 0-based UTF-8 byte offset into the query text where the problem was found.
    public var offset: Int

    /// Creates an error.
    public init(message: String, offset: Int) {
        self.message = message
        self.offset = offset
    }

    /// `invalid encoded query at offset <offset>: <message>`.
    public var description: String {
        "invalid encoded query at offset \(offset): \(message)"
    }
}

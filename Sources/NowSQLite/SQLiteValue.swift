/// A value bound to a statement parameter (``SQLiteStatement/bind(_:)``).
public enum SQLiteValue: Sendable, Hashable {
    /// UTF-8 text.
    case text(String)
    /// A 64-bit integer.
    case integer(Int)
    /// A double.
    case real(Double)
    /// SQL `NULL`.
    case null
}

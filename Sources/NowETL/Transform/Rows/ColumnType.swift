/// The type of an output column, as a pipeline declares it (`type: datetime`).
///
/// Sinks format each value by its own ``ColumnValue`` case; the column type tells readers of the schema
/// (and a future typed sink such as SQLite) what to expect in the column.
public enum ColumnType: String, Sendable, Hashable, Codable, CaseIterable {
    /// Text, written as given.
    case string
    /// A 64-bit signed integer.
    case int
    /// An exact decimal number, kept as its text (`"12.50"`).
    case decimal
    /// `true` or `false`.
    case bool
    /// An instant, `yyyy-MM-dd HH:mm:ss` in UTC on the Table API.
    case dateTime = "datetime"
    /// A calendar date, `yyyy-MM-dd`.
    case date
    /// A length of time in seconds (the Table API writes it as `1970-01-01 HH:mm:ss` past the epoch).
    case duration
}

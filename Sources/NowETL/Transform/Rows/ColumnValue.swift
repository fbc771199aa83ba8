/// One typed, non-null value of a column in a ``RowBatch``; `nil` (an absent `ColumnValue?`) is null.
///
/// How each sink writes the cases (CSV, JSON, XML):
///
/// | case | CSV | JSON | XML |
/// |---|---|---|---|
/// | `string` | text | string | text |
/// | `int` | `-42` | number | `-42` |
/// | `decimal` | text as given | string (exact) or number, see ``JSONSinkOptions/decimalsAsNumbers`` | text |
/// | `bool` | `true` / `false` | `true` / `false` | `true` / `false` |
/// | `dateTime` | `yyyy-MM-dd HH:mm:ss` (UTC; `yyyy-MM-ddTHH:mm:ssZ` with ``DateTimeFormat/iso8601``) | string, same text | same text |
/// | `date` | `yyyy-MM-dd` | string, same text | same text |
/// | `duration` | seconds, `93784` | number of seconds | `1970-01-02 02:03:04`, the instance's raw form |
public enum ColumnValue: Sendable, Hashable {
    /// Text.
    case string(String)
    /// A 64-bit signed integer.
    case int(Int)
    /// An exact decimal number as text (digits, an optional sign and point); sinks never round it.
    case decimal(String)
    /// A boolean.
    case bool(Bool)
    /// An instant as whole seconds since 1970-01-01 00:00:00 UTC; `TableAPIDateFormat` (NowQuery) converts.
    case dateTime(secondsSinceEpoch: Int)
    /// A calendar date as days since 1970-01-01.
    case date(daysSinceEpoch: Int)
    /// A length of time in whole seconds. (The Table API's raw duration `1970-01-02 02:03:04` is a
    /// date-time that many seconds after the epoch: `TableAPIDateFormat.seconds(fromDateTime:)` gives them.)
    case duration(seconds: Int)
}

/// A Swift value a log field can hold: `String`, `Int` and `Bool` are, and ``LogValue`` itself.
///
/// Fields are `[(String, any LogFieldValue)]`, so a call site passes `("table", name)` and
/// `("rows", summary.rows)` as they are, and the number stays a number in JSON logs.
public protocol LogFieldValue: Sendable {
    /// The value as the logger writes it.
    var logValue: LogValue { get }
}

extension LogValue: LogFieldValue {
    /// The value itself.
    public var logValue: LogValue { self }
}

extension String: LogFieldValue {
    /// Text.
    public var logValue: LogValue { .string(self) }
}

extension Int: LogFieldValue {
    /// A whole number.
    public var logValue: LogValue { .int(self) }
}

extension Bool: LogFieldValue {
    /// A boolean.
    public var logValue: LogValue { .bool(self) }
}

extension Int32: LogFieldValue {
    /// A whole number (exit codes are `Int32`).
    public var logValue: LogValue { .int(Int(self)) }
}

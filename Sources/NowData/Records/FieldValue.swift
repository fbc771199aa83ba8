/// A value to write into a field with ``NowTableService/createRecord(with:in:writeOptions:configuration:)-([FieldName:FieldValue],_,_,_)``
/// or ``NowTableService/updateRecord(sysId:in:with:writeOptions:configuration:)-(_,_,[FieldName:FieldValue],_,_)``.
///
/// The Table API represents every field value as a string (`"true"`, `"4"`, `""` to clear), so this is
/// a string with literal conveniences: `["active": true, "priority": 2, "short_description": "Disk full"]`.
public struct FieldValue: Sendable, Hashable, Encodable, CustomStringConvertible {
    /// The text sent for the field.
    public var text: String

    /// Creates a value from its text.
    public init(_ text: String) { self.text = text }

    /// Creates a value from an integer.
    public init(_ value: Int) { self.text = String(value) }

    /// Creates a value from a boolean (`"true"` / `"false"`).
    public init(_ value: Bool) { self.text = value ? "true" : "false" }

    /// Creates a value from a decimal number.
    public init(_ value: Double) { self.text = String(value) }

    /// Encodes as a JSON string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }

    /// The text.
    public var description: String { text }
}

extension FieldValue: ExpressibleByStringLiteral {
    /// Creates a value from a string literal.
    public init(stringLiteral value: String) { self.init(value) }
}

extension FieldValue: ExpressibleByIntegerLiteral {
    /// Creates a value from an integer literal.
    public init(integerLiteral value: Int) { self.init(value) }
}

extension FieldValue: ExpressibleByBooleanLiteral {
    /// Creates a value from a boolean literal.
    public init(booleanLiteral value: Bool) { self.init(value) }
}

extension FieldValue: ExpressibleByFloatLiteral {
    /// Creates a value from a floating-point literal.
    public init(floatLiteral value: Double) { self.init(value) }
}

/// A response format records are written in: JSON (the default) or XML (`Accept: application/xml`).
///
/// ``RecordProjection`` renders every field shape of ref §2.3 through these calls, so both formats
/// carry the same values: a record is a set of fields; a field holds either text or a composite of
/// named members (`display_value`, `link`, `value`).
protocol RecordOutput {
    /// Starts one record (`{` / `<result>`).
    mutating func startRecord()
    /// Ends one record.
    mutating func endRecord()
    /// Starts field `key`; `first` is true for a record's first field.
    mutating func startField(_ key: String, first: Bool)
    /// Ends field `key`.
    mutating func endField(_ key: String)
    /// Writes text (UTF-8 bytes) as the current field's or member's value.
    mutating func text(utf8: UnsafeBufferPointer<UInt8>)
    /// Writes text as the current field's or member's value.
    mutating func text(_ string: String)
    /// Starts a composite value (a reference object, or display and stored value together).
    mutating func startComposite()
    /// Starts member `name` of the current composite; `first` is true for its first member.
    mutating func startMember(_ name: StaticString, first: Bool)
    /// Ends member `name`.
    mutating func endMember(_ name: StaticString)
    /// Ends the current composite.
    mutating func endComposite()
}

extension RecordOutput {
    /// A whole member holding `string`.
    mutating func member(_ name: StaticString, first: Bool, _ string: String) {
        startMember(name, first: first)
        text(string)
        endMember(name)
    }
}

extension JSONWriter: RecordOutput {
    mutating func startRecord() { byte(UInt8(ascii: "{")) }
    mutating func endRecord() { byte(UInt8(ascii: "}")) }
    mutating func startField(_ key: String, first: Bool) {
        if !first { byte(UInt8(ascii: ",")) }
        self.key(key)
    }
    mutating func endField(_ key: String) {}
    mutating func text(utf8: UnsafeBufferPointer<UInt8>) { string(utf8: utf8) }
    mutating func text(_ string: String) { self.string(string) }
    mutating func startComposite() { byte(UInt8(ascii: "{")) }
    mutating func startMember(_ name: StaticString, first: Bool) {
        if !first { byte(UInt8(ascii: ",")) }
        byte(UInt8(ascii: "\""))
        raw(name)
        raw("\":")
    }
    mutating func endMember(_ name: StaticString) {}
    mutating func endComposite() { byte(UInt8(ascii: "}")) }
}

/// A column's dot path into a record, split once at plan time so that lookups per record do no
/// string work: `number`, `caller_id.display_value`, `caller_id.value`, `caller_id.name` (dot-walked).
///
/// A path whose last component is `value`, `display_value` or `link` names one value form of the field
/// before it; otherwise the path names a field (dot-walked fields keep their dotted name in responses).
public struct RecordPath: Sendable, Hashable, CustomStringConvertible {
    /// One of the value forms a field carries with `sysparm_display_value=all` (or with a reference link).
    public enum Form: String, Sendable, Hashable {
        /// The stored value (`value`).
        case value
        /// The display value (`display_value`).
        case displayValue = "display_value"
        /// The reference link (`link`).
        case link
    }

    /// The path as written.
    public let text: String
    /// The field before a trailing form component, when there is one.
    public let field: String?
    /// The trailing form component, when there is one.
    public let form: Form?

    /// Splits `text` at its last dot when the last component is a value form.
    public init(_ text: String) {
        self.text = text
        if let dot = text.lastIndex(of: "."), let form = Form(rawValue: String(text[text.index(after: dot)...])) {
            self.field = String(text[..<dot])
            self.form = form
        } else {
            self.field = nil
            self.form = nil
        }
    }

    /// The first component (the field the request must read), e.g. `caller_id` of `caller_id.name`.
    public var root: String {
        text.split(separator: ".", maxSplits: 1).first.map(String.init) ?? text
    }

    /// The path as written.
    public var description: String { text }
}

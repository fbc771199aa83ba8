import Foundation

/// One record of a page, as a ``PageDecoding`` produced it: field names to values, in whatever forms
/// the instance sent.
///
/// This is the only record representation transforms and sinks see, so a faster page decoder can
/// replace Foundation's `JSONSerialization` without touching them.
public struct Record: Sendable, Hashable {
    /// One field's value.
    public enum Value: Sendable, Hashable {
        /// A plain string (`sysparm_display_value=false` or `true`, no reference link).
        case text(String)
        /// An object of value forms (`sysparm_display_value=all`, or a reference with its `link`).
        case forms(value: String?, displayValue: String?, link: String?)
        /// JSON `null`.
        case null
    }

    /// The fields by name (dot-walked fields keep their dotted name).
    public var fields: [String: Value]

    /// Creates a record.
    public init(fields: [String: Value]) {
        self.fields = fields
    }

    /// The record's sys_id (its stored value), when the record carries one.
    public var sysID: String? {
        text(at: RecordPath("sys_id"), plainForm: .value)
    }

    /// The text at `path`, or `nil` when the record has no such value.
    ///
    /// - Parameter plainForm: which form a plain string stands for (``RecordPath/Form/value`` when read
    ///   with `sysparm_display_value=false`, ``RecordPath/Form/displayValue`` with `true`). A path naming a
    ///   form finds a plain string only when it names this form; a path naming just the field finds the
    ///   field's stored value (or its display value when only that was sent).
    public func text(at path: RecordPath, plainForm: RecordPath.Form) -> String? {
        if let whole = fields[path.text] {
            switch whole {
            case .text(let text): return text
            case .forms(let value, let displayValue, _):
                // Read with both forms although the pipeline asked for one (an unload output needs
                // both): the field alone still means the form the pipeline asked for.
                return plainForm == .displayValue ? displayValue ?? value : value ?? displayValue
            case .null: return nil
            }
        }
        guard let field = path.field, let form = path.form, let value = fields[field] else { return nil }
        switch value {
        case .text(let text): return form == plainForm ? text : nil
        case .forms(let stored, let displayValue, let link):
            switch form {
            case .value: return stored
            case .displayValue: return displayValue
            case .link: return link
            }
        case .null: return nil
        }
    }

    /// The display value of `field` when the record carries one beside the stored value.
    public func displayValue(of field: String) -> String? {
        if case .forms(_, let displayValue, _) = fields[field] { return displayValue }
        return nil
    }

    /// The record as one line of JSON with sorted keys (no trailing newline), as the instance sent it
    /// give or take key order: for dead-letter files.
    public func jsonLine() -> Data {
        var object: [String: Any] = [:]
        for (name, value) in fields {
            switch value {
            case .text(let text): object[name] = text
            case .null: object[name] = NSNull()
            case .forms(let stored, let displayValue, let link):
                var forms: [String: Any] = [:]
                if let stored { forms["value"] = stored }
                if let displayValue { forms["display_value"] = displayValue }
                if let link { forms["link"] = link }
                object[name] = forms
            }
        }
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
    }
}

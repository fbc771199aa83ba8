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

    /// How the values are held: a dictionary (``init(fields:)``), or by slot of a layout its page's
    /// records share, as byte ranges of the page body (``FastPageDecoder``).
    enum Storage: Sendable {
        case dictionary([String: Value])
        /// `values.count == layout.names.count`; ``RawValue/absent`` where the record has no such field.
        case slots(RecordLayout, PageValues)
    }

    var storage: Storage

    /// The fields by name (dot-walked fields keep their dotted name).
    ///
    /// A record decoded by ``FastPageDecoder`` builds this dictionary on each read: transforms read
    /// fields with ``value(of:)`` or ``text(at:plainForm:)`` instead.
    public var fields: [String: Value] {
        get {
            switch storage {
            case .dictionary(let fields):
                return fields
            case .slots(let layout, let values):
                var fields = [String: Value](minimumCapacity: values.count)
                for slot in 0..<values.count {
                    if let value = values[slot] { fields[layout.names[slot]] = value }
                }
                return fields
            }
        }
        set { storage = .dictionary(newValue) }
    }

    /// Creates a record.
    public init(fields: [String: Value]) {
        storage = .dictionary(fields)
    }

    /// Creates a record of `values` by slot of `layout` (as many values as the layout has names), ranges
    /// of `page`.
    init(layout: RecordLayout, page: PageText, values: [RawValue]) {
        storage = .slots(layout, PageValues(page: page, raw: values))
    }

    /// The value of `field`, when the record has the field.
    public func value(of field: String) -> Value? {
        switch storage {
        case .dictionary(let fields):
            return fields[field]
        case .slots(let layout, let values):
            guard let slot = layout.slot(of: field) else { return nil }
            return values[slot]
        }
    }

    /// Records are equal when they have the same fields with the same values, however they are held.
    public static func == (left: Record, right: Record) -> Bool {
        switch (left.storage, right.storage) {
        case (.dictionary(let leftFields), .dictionary(let rightFields)):
            return leftFields == rightFields
        case (.slots(let leftLayout, let leftValues), .slots(let rightLayout, let rightValues))
        where leftLayout === rightLayout:
            // Equal texts may sit at different ranges: the values are compared, not the ranges.
            for slot in 0..<leftValues.count where leftValues.raw[slot] != rightValues.raw[slot] {
                if leftValues[slot] != rightValues[slot] { return false }
            }
            return true
        default:
            return left.fields == right.fields
        }
    }

    /// Hashes the fields (the same for equal records held differently).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(fields)
    }

    /// The record's sys_id (its stored value), when the record carries one.
    public var sysID: String? {
        if case .slots(let layout, let values) = storage {
            // The slot is the layout's, found once: extraction reads every record's sys_id several times.
            guard let slot = layout.sysIDSlot else { return nil }
            return values.page.string(
                RawValue.range(whole: values.raw[slot], part: .absent, form: nil, plainForm: .value))
        }
        return text(at: Self.sysIDPath, plainForm: .value)
    }

    private static let sysIDPath = RecordPath("sys_id")

    /// The text at `path`, or `nil` when the record has no such value.
    ///
    /// - Parameter plainForm: which form a plain string stands for (``RecordPath/Form/value`` when read
    ///   with `sysparm_display_value=false`, ``RecordPath/Form/displayValue`` with `true`). A path naming a
    ///   form finds a plain string only when it names this form; a path naming just the field finds the
    ///   field's stored value (or its display value when only that was sent).
    public func text(at path: RecordPath, plainForm: RecordPath.Form) -> String? {
        let whole = value(of: path.text)
        let part = whole == nil ? path.field.flatMap { value(of: $0) } : nil
        return Self.text(whole: whole, part: part, form: path.form, plainForm: plainForm)
    }

    /// The text of a path given the value of its whole text as a field (`whole`) and, when there is
    /// none, the value of the field before its form component (`part`): ``text(at:plainForm:)``.
    @inline(__always)
    static func text(whole: Value?, part: Value?, form: RecordPath.Form?, plainForm: RecordPath.Form) -> String? {
        if let whole {
            switch whole {
            case .text(let text): return text
            case .forms(let value, let displayValue, _):
                // Read with both forms although the pipeline asked for one (an unload output needs
                // both): the field alone still means the form the pipeline asked for.
                return plainForm == .displayValue ? displayValue ?? value : value ?? displayValue
            case .null: return nil
            }
        }
        guard let form, let part else { return nil }
        switch part {
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
        Self.displayValue(value(of: field))
    }

    /// The display value in `value` when it is an object of forms.
    @inline(__always)
    static func displayValue(_ value: Value?) -> String? {
        if case .forms(_, let displayValue, _) = value { return displayValue }
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

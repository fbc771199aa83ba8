import Foundation
import NowData

/// A record whose value would not convert to its column's type, whose text is not valid UTF-8, or whose
/// text holds NUL where an output cannot store it.
public struct Rejection: Sendable, Hashable, CustomStringConvertible {
    /// Why the record was rejected.
    public enum Problem: Sendable, Hashable {
        /// ``Rejection/value`` will not convert to ``Rejection/type``.
        case unconvertible
        /// Field ``Rejection/column`` holds bytes that are not UTF-8; ``Rejection/value`` and
        /// ``Rejection/record`` show them as U+FFFD.
        case invalidUTF8
        /// The record's sys_id breaks ``SysIDRule`` (or it has none): it cannot be a cursor, a bound or
        /// a state value, so the record is left out; ``Rejection/value`` is the sys_id, escaped.
        case invalidSysID
        /// Column ``Rejection/column`` holds NUL (U+0000), which a PostgreSQL output cannot store
        /// (``RecordTransformer/refusesNUL``).
        case nulCharacter
    }

    /// The record's sys_id (empty when it had none).
    public var sysID: String
    /// The column whose value failed (for ``Problem/invalidUTF8``, the field).
    public var column: String
    /// The column's type.
    public var type: ColumnType
    /// The text that would not convert.
    public var value: String
    /// The whole record as one JSON line, for the dead-letter file.
    public var record: Data
    /// Why (default ``Problem/unconvertible``).
    public var problem: Problem = .unconvertible

    /// `record <sys_id>: column 'opened' (datetime) cannot take "yesterday"`,
    /// `record <sys_id>: field 'short_description' is not valid UTF-8 ("caf�")`, or
    /// `record <sys_id>: column 'notes' holds NUL (U+0000), which PostgreSQL text cannot store ("a\0b")`.
    public var description: String {
        // sys_ids and values come from the instance: escaped, so a message never carries its controls.
        let record = "record \(sysID.isEmpty ? "<no sys_id>" : SysIDRule.escaped(sysID))"
        let value = PrintableText.escaped(String(self.value.prefix(200)))
        switch problem {
        case .unconvertible:
            return "\(record): column '\(column)' (\(type.rawValue)) cannot take \"\(value)\""
        case .invalidUTF8:
            return "\(record): field '\(column)' is not valid UTF-8 (\"\(value)\")"
        case .invalidSysID:
            let problem = sysID.isEmpty ? "is missing" : SysIDRule.problem(sysID) ?? "is not usable"
            return "\(record): its sys_id \(problem) (a sys_id is 1 to \(SysIDRule.maximumLength) letters, digits, "
                + "'-', '_' or '.'), so it cannot be paged after or saved"
        case .nulCharacter:
            // The value is escaped above: its NUL shows as \u{0}.
            return "\(record): column '\(column)' holds NUL (U+0000), which PostgreSQL text cannot store (\"\(value)\")"
        }
    }
}

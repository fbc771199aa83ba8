import Foundation

/// A record whose value would not convert to its column's type.
public struct Rejection: Sendable, Hashable, CustomStringConvertible {
    /// The record's sys_id (empty when it had none).
    public var sysID: String
    /// The column whose value failed.
    public var column: String
    /// The column's type.
    public var type: ColumnType
    /// The text that would not convert.
    public var value: String
    /// The whole record as one JSON line, for the dead-letter file.
    public var record: Data

    /// Creates a rejection.
    public init(sysID: String, column: String, type: ColumnType, value: String, record: Data) {
        self.sysID = sysID
        self.column = column
        self.type = type
        self.value = value
        self.record = record
    }

    /// `record <sys_id>: column 'opened' (datetime) cannot take "yesterday"`.
    public var description: String {
        "record \(sysID.isEmpty ? "<no sys_id>" : sysID): column '\(column)' (\(type.rawValue)) cannot take "
            + "\"\(value.prefix(200))\""
    }
}

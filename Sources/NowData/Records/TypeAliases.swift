/// A record's 32-character sys_id.
public typealias SysID = String

/// A field (column) name, possibly dot-walked (`caller_id.name`).
public typealias FieldName = String

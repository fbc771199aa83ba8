/// A field (column) name, possibly dot-walked (`caller_id.name`).
public typealias FieldName = String

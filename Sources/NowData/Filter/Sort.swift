/// A sort clause of a ``Filter`` (`ORDERBY<field>` / `ORDERBYDESC<field>`).
public enum Sort: Sendable, Hashable {
    /// Ascending by the field.
    case asc(FieldName)
    /// Descending by the field.
    case desc(FieldName)

    /// The clause as an ``EncodedQuery/Sort``.
    public var encodedSort: EncodedQuery.Sort {
        switch self {
        case .asc(let field): return EncodedQuery.Sort(field: field, descending: false)
        case .desc(let field): return EncodedQuery.Sort(field: field, descending: true)
        }
    }
}

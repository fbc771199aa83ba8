/// Conditions combined into one term.
public enum CompoundCondition: Sendable, Hashable, QueryProviding {
    /// Any of the conditions holds (`a^ORb^ORc`); binds tighter than the AND between terms.
    case or([Condition])

    /// The term as an ``EncodedQuery/Term``.
    public var term: EncodedQuery.Term {
        switch self {
        case .or(let conditions): return EncodedQuery.Term(conditions: conditions.map(\.encodedCondition))
        }
    }

    /// The encoded query text (`a^ORb`).
    public var query: String { EncodedQuery(groups: [.init(terms: [term])]).description }
}

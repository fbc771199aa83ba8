/// Conditions that must all hold (one AND group); a ``Filter`` OR-s several criteria with `^NQ`.
public struct Criteria: Sendable {
    /// The AND-ed conditions.
    public var conditions: [any QueryProviding]

    /// Creates criteria from AND-ed conditions.
    public init(conditions: [any QueryProviding]) { self.conditions = conditions }

    /// Creates criteria from one condition.
    public init(condition: any QueryProviding) { self.conditions = [condition] }
}

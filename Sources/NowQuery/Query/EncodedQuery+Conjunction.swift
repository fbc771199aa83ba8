extension EncodedQuery {
    /// This query with `terms` AND-ed to it: added to every `^NQ` group, since groups are OR-ed and
    /// terms added once would constrain only the last group. Without conditions the terms form the only
    /// group; groups without terms are dropped. Sort clauses and the `^EQ` marker are kept.
    ///
    /// ```swift
    /// let query = try EncodedQuery(parsing: "active=true^NQpriority=1")
    /// query.and([updatedSince])   // active=true^sys_updated_on>=…^NQpriority=1^sys_updated_on>=…
    /// ```
    public func and(_ terms: [Term]) -> EncodedQuery {
        guard !terms.isEmpty else { return self }
        var query = self
        let conditionGroups = groups.filter { !$0.terms.isEmpty }
        query.groups =
            conditionGroups.isEmpty ? [Group(terms: terms)] : conditionGroups.map { Group(terms: $0.terms + terms) }
        return query
    }
}

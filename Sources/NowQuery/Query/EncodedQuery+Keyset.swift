extension EncodedQuery {
    /// The query of one keyset page: this query's conditions with sys_id bounds, sorted by sys_id alone.
    ///
    /// Gives `<group>^sys_id>=LOW^sys_id<HIGH^sys_id>AFTER` for every `^NQ` group, then `^ORDERBYsys_id`.
    /// The bounds go into each group because groups are OR-ed: added once, they would constrain only the
    /// last group. The query's own sort clauses and `^EQ` marker are dropped, since keyset paging needs
    /// sys_id order; groups without terms are dropped too. Without conditions the bounds form the only
    /// group, and without bounds either the query is just `ORDERBYsys_id`.
    ///
    /// - Parameters:
    ///   - range: The partition to stay in (`sys_id>=lowerBound`, `sys_id<upperBound`); `nil` for all.
    ///   - after: The last sys_id of the previous page (`sys_id>after`); `nil` for the first page.
    public func keysetPage(in range: SysIDRange? = nil, after: SysID? = nil) -> EncodedQuery {
        var bounds: [Term] = []
        if let lower = range?.lowerBound { bounds.append(Self.sysIDTerm(.greaterThanOrEquals, lower)) }
        if let upper = range?.upperBound { bounds.append(Self.sysIDTerm(.lessThan, upper)) }
        if let after { bounds.append(Self.sysIDTerm(.greaterThan, after)) }
        let conditionGroups = groups.filter { !$0.terms.isEmpty }
        let pageGroups: [Group]
        if conditionGroups.isEmpty {
            pageGroups = bounds.isEmpty ? [] : [Group(terms: bounds)]
        } else {
            pageGroups = conditionGroups.map { Group(terms: $0.terms + bounds) }
        }
        return EncodedQuery(groups: pageGroups, orderBy: [Sort(field: "sys_id")])
    }

    /// The query of offset pages: this query with `ORDERBYsys_id` appended as a tie-breaker, unless its
    /// last sort clause already is on sys_id (ascending or descending), so pages have a total order.
    public func offsetPage() -> EncodedQuery {
        if let last = orderBy.last, last.field == "sys_id" { return self }
        var query = self
        query.orderBy.append(Sort(field: "sys_id"))
        return query
    }

    private static func sysIDTerm(_ op: Operator, _ value: SysID) -> Term {
        Term(conditions: [Condition(field: "sys_id", op: op, value: .literal(value))])
    }
}

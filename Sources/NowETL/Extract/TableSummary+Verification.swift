extension TableSummary {
    /// A warning when the instance's count for the filter differs from the records accounted for (rows
    /// written, rejected records and records hidden from the reading user), i.e. records changed during
    /// the export; `nil` when they agree or no count was read.
    public var countWarning: String? {
        guard let sourceCount, sourceCount != rows + rejects + hiddenRows else { return nil }
        var text =
            "table \(table): the instance counted \(sourceCount) records for the filter, \(rows) rows were written"
        if rejects > 0 { text += ", \(rejects) rejected" }
        if hiddenRows > 0 { text += ", \(hiddenRows) hidden from this user" }
        return text + " (records changed during the export)"
    }
}

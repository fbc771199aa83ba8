extension TableSummary {
    /// A warning when the instance's count for the filter differs from the records exported (rows
    /// written plus rejected records), e.g. because ACLs hid records from the reading user; `nil` when
    /// they agree or no count was read.
    public var countWarning: String? {
        guard let sourceCount, sourceCount != rows + rejects else { return nil }
        var text =
            "table \(table): the instance counted \(sourceCount) records for the filter, \(rows) rows were written"
        if rejects > 0 { text += " and \(rejects) rejected" }
        return text + " (ACLs hiding records, or records changing during the export)"
    }
}

import NowETL

/// The transform half of `nowetl-bench decode-transform`: a ``RecordTransformer`` over every field of
/// the pages, and a cell-by-cell comparison of the rows two decoders lead to.
enum TransformTiming {
    /// A transformer with one string column per field name of `pages` (sorted), a reference column where
    /// a field carries value forms, read with stored values.
    static func transformer(for pages: [[Record]]) -> RecordTransformer {
        var names: Set<String> = []
        var references: Set<String> = []
        for record in pages.joined() {
            for (name, value) in record.fields {
                names.insert(name)
                if case .forms = value { references.insert(name) }
            }
        }
        let columns = names.sorted().map { name in
            PlannedColumn(
                path: RecordPath(name), schema: ColumnSchema(name: name, isReference: references.contains(name)))
        }
        return RecordTransformer(columns: columns, displayValue: .actual)
    }

    /// The rows and rejections of one page's records.
    static func rows(of records: [Record], transformer: RecordTransformer) -> (batch: RowBatch, rejections: [Rejection])
    {
        var batch = RowBatch(schema: transformer.schema, capacity: records.count)
        let rejections = transformer.transform(records, into: &batch)
        return (batch, rejections)
    }

    /// Whether two transforms gave the same cells, display values, record tables and rejections.
    static func same(
        _ left: (batch: RowBatch, rejections: [Rejection]), _ right: (batch: RowBatch, rejections: [Rejection])
    )
        -> Bool
    {
        guard left.batch.count == right.batch.count, left.batch.columnCount == right.batch.columnCount,
            left.rejections == right.rejections
        else { return false }
        let displays = left.batch.carriesDisplayValues
        for row in 0..<left.batch.count {
            guard left.batch.values(row: row) == right.batch.values(row: row),
                left.batch.recordTable(row: row) == right.batch.recordTable(row: row)
            else { return false }
            if displays {
                for column in 0..<left.batch.columnCount
                where left.batch.displayValue(row: row, column: column)
                    != right.batch.displayValue(row: row, column: column)
                {
                    return false
                }
            }
        }
        return true
    }
}

extension TableExport {
    /// For `choice_labels: true`: reads the table's choice labels once (``ChoiceLabelFetch``, through the
    /// table's service and the run's request limiter) and hands them to every database sink of
    /// `pipeline`, which loads them at its `prepare` (``DatabaseSink/choiceLabels``). Before the join,
    /// so no database transaction is open while the instance answers. Nothing without database sinks.
    ///
    /// - Throws: ``NowETLError`` naming the table; `CancellationError`.
    func handChoiceLabels(to pipeline: TablePipeline) async throws {
        let sinks = pipeline.sinks.compactMap { $0 as? DatabaseSink }
        guard table.choiceLabels, !sinks.isEmpty else { return }
        let discovery = FieldDiscovery(service: service, decoder: engine.decoder)
        guard let dictionary = try await engine.dictionaries.dictionary(of: table.table, using: discovery) else {
            throw NowETLError(
                .failed, table: table.table, "table '\(table.table)' is not in sys_db_object (no such table?)")
        }
        let labels = try await ChoiceLabelFetch(
            table: table.table, chain: dictionary.chain, service: service, limiter: engine.limiter,
            decoder: engine.decoder, pageSize: engine.configuration.source.pageSize
        ).run()
        for sink in sinks { sink.choiceLabels = labels }
    }
}

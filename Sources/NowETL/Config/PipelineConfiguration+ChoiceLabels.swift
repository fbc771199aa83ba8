extension PipelineConfiguration {
    /// `choice_labels: true` loads `<table>__choices` into the table's database outputs: a pipeline
    /// without one would ask for labels nothing receives, so the key is refused there (at the table's
    /// `choice_labels`, like the whole record's keys without a file or instance output).
    ///
    /// `codingPath` is the pipeline's (the container's) coding path.
    func checkChoiceLabelOutputs(at codingPath: [any CodingKey]) throws {
        guard !outputs.contains(where: \.isDatabase) else { return }
        guard let index = tables.firstIndex(where: \.choiceLabels) else { return }
        let path: [any CodingKey] =
            codingPath + [PathKey(stringValue: "tables"), PathKey(index: index), PathKey(stringValue: "choice_labels")]
        throw ConfigIssue(
            .invalidValue, at: path,
            "\(ConfigPath(codingPath: path)): true loads the table's choice labels (<table>__choices) into its "
                + "database outputs, and the pipeline has none; add a sqlite: or postgres: output, or leave "
                + "choice_labels out", pointsAtKey: true)
    }
}

extension PipelineConfiguration {
    /// Every secret value of the pipeline, for the logger to redact: the source's
    /// (``SourceConfiguration/secretValues``) and the database outputs' passwords.
    var secretValues: [String] {
        var values = source.secretValues
        for output in outputs {
            if case .postgres(let postgres) = output { values += postgres.options.secretValues }
        }
        return values
    }
}

extension PipelineConfiguration {
    /// Every secret value of the pipeline, for the logger to redact: the source's
    /// (``SourceConfiguration/secretValues``), the database outputs' passwords and the target instances'
    /// credentials.
    var secretValues: [String] {
        var values = source.secretValues
        for output in outputs {
            switch output {
            case .postgres(let postgres): values += postgres.options.secretValues
            case .mysql(let mysql): values += mysql.options.secretValues
            case .instance(let instance): values += instance.connection.secretValues
            case .csv, .xml, .json, .sqlite: break
            }
        }
        return values
    }
}

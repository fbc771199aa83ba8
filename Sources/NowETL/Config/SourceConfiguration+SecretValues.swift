extension SourceConfiguration {
    /// Every secret value of the source, for the logger to redact (``InstanceConnection/secretValues``).
    var secretValues: [String] { connection.secretValues }
}

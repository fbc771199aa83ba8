extension PipelineConfiguration {
    /// Whether a run must write referenced tables before the tables that reference them, so the order
    /// is computed from the instance's dictionary (``TableOrder/computed(_:ancestors:)``) when the
    /// pipeline has no `order:`.
    ///
    /// Only an output that writes into an instance needs it: its references resolve on the target as
    /// rows arrive. Files and reporting databases do not, so their runs keep the pipeline order and
    /// never read the dictionary for an order (nor fail because it cannot be read). One line per
    /// output kind: an output kind that needs the order answers `true` here.
    public var needsDependencyOrder: Bool {
        outputs.contains { output in
            switch output.kind {
            case .csv, .xml, .json, .sqlite, .postgres, .mysql: false
            case .instance: true
            }
        }
    }
}

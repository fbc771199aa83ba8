import NowSimTesting

/// Parts of ``PipelineYAML`` that several suites of NowETLTests share.
extension PipelineYAML {
    /// The user `etl` with the password from `${SN_PASSWORD}`: the pipelines whose runs never reach an
    /// instance, or check that the password is never printed.
    static let etlAuth = #"{ basic: { user: etl, password: "${SN_PASSWORD}" } }"#

    /// The seeded incidents that `filter` keeps, with display values, in seven typed columns: the table
    /// of the end-to-end runs that compare whole files (CLIEndToEndTests, ShardEndToEndTests).
    static func incidentColumns(filter: String) -> String {
        """
          - table: incident
            filter: \(filter)
            fields: [number, short_description, description, caller_id, priority, opened_at]
            display_value: all
            columns:
              - { name: sys_id, path: sys_id.value }
              - { name: number, path: number.value }
              - { name: short_description, path: short_description.value }
              - { name: description, path: description.value }
              - { name: caller, path: caller_id.display_value }
              - { name: priority, path: priority.value, type: int }
              - { name: opened_at, path: opened_at.value, type: datetime }
        """
    }
}

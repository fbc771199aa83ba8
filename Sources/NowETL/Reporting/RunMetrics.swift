import Foundation

/// The run's outcome in the Prometheus text exposition format (version 0.0.4): what
/// `nowetl run --metrics-file PATH` writes, for node_exporter's textfile collector.
///
/// ```text
/// # HELP nowetl_exit_code The exit code of the pipeline's last run.
/// # TYPE nowetl_exit_code gauge
/// nowetl_exit_code{pipeline="nightly"} 0
/// # HELP nowetl_table_rows Rows written for the table in the last run.
/// # TYPE nowetl_table_rows gauge
/// nowetl_table_rows{pipeline="nightly",table="incident"} 2000
/// ```
///
/// Every value is a gauge: each run replaces the file, so the table counts are the last run's, not
/// totals that only grow. The per-table values are those of `--summary-json` (``RunReport/tables``),
/// and every ``TableCounter`` is exported as `nowetl_table_<counter>`, so a new counter appears here
/// without a change. A run that failed before its tables has the run metrics only.
enum RunMetrics {
    /// The metric a failed run carries over from the previous file.
    static let lastSuccessName = "nowetl_last_success_timestamp_seconds"

    /// The `pipeline` label of the pipeline file at `path`: `/etc/nowetl/nightly.yaml` is `nightly`.
    static func pipelineLabel(_ path: String) -> String {
        let name = (path as NSString).lastPathComponent
        let stem = (name as NSString).deletingPathExtension
        return stem.isEmpty ? name : stem
    }

    /// The value of ``lastSuccessName`` in a metrics file written before, or `nil` when the text has
    /// none that reads as a finite, non-negative number: the file is ours, but it may have been cut short
    /// or edited, and a damaged one must not stop the run from writing the new one.
    static func lastSuccess(in text: String) -> Double? {
        for line in text.split(whereSeparator: \.isNewline) {
            guard line.hasPrefix(lastSuccessName + "{") || line.hasPrefix(lastSuccessName + " "),
                let field = line.split(whereSeparator: \.isWhitespace).last, let value = Double(field),
                value.isFinite, value >= 0
            else { continue }
            return value
        }
        return nil
    }

    /// The file's text — HELP and TYPE, then the samples, of every metric; a final line break — for a
    /// run of the pipeline labelled `pipeline` (``pipelineLabel(_:)``) that ended with `exitCode` at
    /// `finished` (seconds since 1970) after `seconds`; `lastSuccess` is when the pipeline last succeeded
    /// (this run or one before; `nil`: never as far as known), `tables` its tables with their counts as
    /// the summary JSON has them (none for a run that stopped before its tables).
    static func text(
        pipeline: String, exitCode: Int32, seconds: Double, finished: Double, lastSuccess: Double?,
        tables: [WithCounts<RunReport.Table>]
    ) -> String {
        let run = [("pipeline", pipeline)]
        var families: [(name: String, help: String, samples: [(labels: [(String, String)], value: String)])] = [
            ("nowetl_exit_code", "The exit code of the pipeline's last run (0: ok).", [(run, String(exitCode))]),
            ("nowetl_run_duration_seconds", "Wall time of the pipeline's last run.", [(run, number(seconds))]),
            (
                "nowetl_last_run_timestamp_seconds", "When the pipeline's last run ended (Unix time).",
                [(run, number(finished))]
            ),
        ]
        if let lastSuccess {
            families.append(
                (
                    lastSuccessName, "When a run of the pipeline last succeeded (Unix time).",
                    [(run, number(lastSuccess))]
                ))
        }
        func perTable(_ name: String, _ help: String, _ value: (WithCounts<RunReport.Table>) -> String) {
            guard !tables.isEmpty else { return }
            families.append(
                ("nowetl_table_" + name, help, tables.map { (run + [("table", $0.table)], value($0)) }))
        }
        perTable("status", "1 when the table's export was ok in the last run, 0 otherwise.") {
            $0.status == .ok ? "1" : "0"
        }
        perTable("rows", "Rows written for the table in the last run.") { String($0.rows) }
        perTable("rejects", "Records of the table rejected in the last run.") { String($0.rejects) }
        perTable("hidden_rows", "Records the instance counts but hid from the reading user in the last run.") {
            String($0.hiddenRows)
        }
        perTable("deleted", "Deletion records written for the table in the last run.") { String($0.deleted) }
        perTable("seconds", "Wall time of the table's export in the last run.") { number($0.seconds) }
        // A counter named like one of the values above (a future `deleted` counter) is exported once.
        for counter in TableCounter.allCases
        where !families.contains(where: { $0.name == "nowetl_table_" + counter.rawValue }) {
            let words = counter.rawValue.replacingOccurrences(of: "_", with: " ")
            perTable(counter.rawValue, "The table's \(words) in the last run.") { String($0.counts[counter]) }
        }
        var lines: [String] = []
        for family in families {
            lines.append("# HELP \(family.name) \(family.help)")
            lines.append("# TYPE \(family.name) gauge")
            for sample in family.samples {
                let labels = sample.labels.map { "\($0.0)=\"\(escaped($0.1))\"" }.joined(separator: ",")
                lines.append("\(family.name){\(labels)} \(sample.value)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A label value as the exposition format quotes it: backslash (first, so the escapes' own
    /// backslashes stay single), double quote and line feed escaped.
    static func escaped(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    /// A float sample value; Swift's shortest round-tripping form, which Prometheus' parser reads.
    private static func number(_ value: Double) -> String {
        value.isFinite ? "\(value)" : "NaN"
    }
}

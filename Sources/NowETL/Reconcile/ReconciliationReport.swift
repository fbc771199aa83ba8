import Foundation
import NowData

/// The outcome of `nowetl reconcile`: every reconciled table's result, the totals, the failure that
/// stopped it (if one did) and the tables it did not reach; written as JSON (``write(toFile:)``) and
/// printed as a readable summary (``text()``).
///
/// The JSON shape (version 1, snake_case keys):
///
/// ```json
/// {
///   "version": 1, "status": "different", "exit_code": 1,
///   "started": "2026-12-01T21:00:00Z", "seconds": 4.2,
///   "source": "https://prod.example.com", "target": "https://test.example.com",
///   "totals": { "tables": 1, "equal_tables": 0, "source_rows": 3, "target_rows": 3, "matching": 1,
///               "missing": 1, "extra": 1, "differing": 1, "source_hidden": 0, "target_hidden": 0 },
///   "tables": [ { "table": "incident", "equal": false, "fields": ["active", "…", "sys_id"],
///                 "source_rows": 3, "target_rows": 3, "source_hidden": 0, "target_hidden": 0,
///                 "matching": 1, "missing": 1, "missing_sys_ids": ["…"], "extra": 1,
///                 "extra_sys_ids": ["…"], "differing": 1,
///                 "differing_rows": [ { "sys_id": "…", "source_digest": "…", "target_digest": "…",
///                   "fields": [ { "field": "short_description", "source": "Printer down",
///                                 "target": "changed", "truncated": false, "withheld": false } ] } ],
///                 "pages": 4, "requests": 6, "seconds": 0.8 } ],
///   "not_run": []
/// }
/// ```
///
/// `status` is `equal` (exit 0), `different` (exit 1) or `failed` (the failure's exit code: 69, 75,
/// 77, 78 or 1); only then is there a `failure` object naming the table, the message and the exit
/// code, and `not_run` lists the selected tables after it.
///
/// After a migration with `coalesce:` the report also lists the maps it compared through (`maps`:
/// ``ReconcileMaps/Used``) and each table has a `mapping` object
/// (``TableReconciliationResult/Mapping``); without maps neither key is written.
public struct ReconciliationReport: Sendable, Hashable, Codable {
    /// Sums over the reconciled tables.
    public struct Totals: Sendable, Hashable, Codable {
        /// Tables reconciled.
        public var tables = 0
        /// Of them, tables found equal.
        public var equalTables = 0
        /// Records read from the source.
        public var sourceRows = 0
        /// Records read from the target.
        public var targetRows = 0
        /// Rows equal on both sides.
        public var matching = 0
        /// Rows the target lacks.
        public var missing = 0
        /// Rows only the target has.
        public var extra = 0
        /// Rows on both sides whose values differ.
        public var differing = 0
        /// Records the source hid from the reader.
        public var sourceHidden = 0
        /// Records the target hid from the reader.
        public var targetHidden = 0

        enum CodingKeys: String, CodingKey {
            case tables
            case equalTables = "equal_tables"
            case sourceRows = "source_rows"
            case targetRows = "target_rows"
            case matching, missing, extra, differing
            case sourceHidden = "source_hidden"
            case targetHidden = "target_hidden"
        }
    }

    /// Why the reconciliation stopped before its last table.
    public struct Failure: Sendable, Hashable, Codable {
        /// The table it failed on.
        public var table: String
        /// What went wrong (the side, the URL without credentials; never a secret).
        public var message: String
        /// The exit code.
        public var exitCode: Int32

        enum CodingKeys: String, CodingKey {
            case table, message
            case exitCode = "exit_code"
        }
    }

    /// The report format's version (1).
    public var version = 1
    /// `equal`, `different` or `failed`.
    public var status: String
    /// The process exit code.
    public var exitCode: Int32
    /// When the reconciliation started, ISO 8601 UTC.
    public var started: String
    /// Wall time, seconds.
    public var seconds: Double
    /// The source instance URL (no credentials).
    public var source: String
    /// The target instance URL (no credentials).
    public var target: String
    /// Sums.
    public var totals: Totals
    /// The reconciled tables, in pipeline order.
    public var tables: [TableReconciliationResult]
    /// The failure that stopped it, if one did.
    public var failure: Failure?
    /// The selected tables it did not reach.
    public var notRun: [String]
    /// The sys_id maps of the last committed migration it compared through (``ReconcileMaps``), one
    /// per coalesced table; `nil` (and absent from the JSON) when the pipeline coalesces nothing.
    public var maps: [ReconcileMaps.Used]?

    enum CodingKeys: String, CodingKey {
        case version, status
        case exitCode = "exit_code"
        case started, seconds, source, target, totals, tables, failure
        case notRun = "not_run"
        case maps
    }

    /// The report of `tables`, stopped by `failure` (with `notRun` left) or complete.
    public init(
        source: String, target: String, started: Date, seconds: Double, tables: [TableReconciliationResult],
        failure: Failure? = nil, notRun: [String] = [], maps: [ReconcileMaps.Used]? = nil
    ) {
        self.maps = maps
        self.source = source
        self.target = target
        self.started = RunLogger.timestamp(started)
        self.seconds = seconds
        self.tables = tables
        self.failure = failure
        self.notRun = notRun
        var totals = Totals()
        for table in tables {
            totals.tables += 1
            if table.isEqual { totals.equalTables += 1 }
            totals.sourceRows += table.sourceRows
            totals.targetRows += table.targetRows
            totals.matching += table.matching
            totals.missing += table.missing
            totals.extra += table.extra
            totals.differing += table.differing
            totals.sourceHidden += table.sourceHidden
            totals.targetHidden += table.targetHidden
        }
        self.totals = totals
        if let failure {
            status = "failed"
            exitCode = failure.exitCode
        } else if tables.allSatisfy(\.isEqual) {
            status = "equal"
            exitCode = NowETLExitCode.ok
        } else {
            status = "different"
            exitCode = NowETLExitCode.failed
        }
    }

    /// The report as pretty-printed JSON with sorted keys, ending with a line break.
    public func jsonData() throws -> Data {
        try JSONDocument.data(self)
    }

    /// Writes the JSON to `path` atomically (a temporary file beside it, synced, renamed into place), so
    /// a reader sees the old report or the whole new one.
    ///
    /// - Throws: ``NowETLError`` when the file cannot be written.
    public func write(toFile path: String) throws {
        let data = try jsonData()
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        if !FileManager.default.fileExists(atPath: directory) {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            } catch {
                throw NowETLError(.io, path: path, "cannot create the report's directory", cause: error)
            }
        }
        try AtomicFile.holding(data, targetPath: url.path, displayPath: path, mode: nil).commitOrAbort()
    }

    /// The readable summary, ending with a line break:
    ///
    /// ```
    /// reconcile https://prod.example.com → https://test.example.com: different (exit 1)
    ///
    /// table     source  target  matching  missing  extra  differing  result
    /// incident       3       3         1        1      1          1  different
    /// total          3       3         1        1      1          1
    ///
    /// incident: 1 missing on the target: 6816f79c0a0a0b2a00e6b10f2cdbd2b6
    /// incident: 1 extra on the target: 9d385017c611228701d22104cc95c371
    /// incident: 1 differing: 46d44a0aa9fe198101b9c5d4a6f5cc1a
    ///   short_description: source "Printer down" · target "changed"
    /// ```
    public func text() -> String {
        var out = "reconcile \(source) → \(target): \(status) (exit \(exitCode))\n"
        for map in maps ?? [] {
            let actions = map.actions.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }
            let entries = map.actions.values.reduce(0, +)
            out +=
                "map \(map.table) [\(map.keys.joined(separator: ", "))]: \(map.path)"
                + (map.exists
                    ? ", \(entries) entr\(entries == 1 ? "y" : "ies")"
                        + (actions.isEmpty ? "" : " (\(actions.joined(separator: ", ")))") + "\n"
                    : " not found: no committed migration mapped the table\n")
        }
        let showsHidden = totals.sourceHidden + totals.targetHidden > 0
        var header = ["table", "source", "target", "matching", "missing", "extra", "differing"]
        if showsHidden { header.append("hidden") }
        header.append("result")
        var rows = [header]
        for table in tables {
            var row = [
                table.table, "\(table.sourceRows)", "\(table.targetRows)", "\(table.matching)", "\(table.missing)",
                "\(table.extra)", "\(table.differing)",
            ]
            if showsHidden { row.append("\(table.sourceHidden)/\(table.targetHidden)") }
            row.append(table.isEqual ? "equal" : "different")
            rows.append(row)
        }
        if !tables.isEmpty {
            var total = [
                "total", "\(totals.sourceRows)", "\(totals.targetRows)", "\(totals.matching)", "\(totals.missing)",
                "\(totals.extra)", "\(totals.differing)",
            ]
            if showsHidden { total.append("\(totals.sourceHidden)/\(totals.targetHidden)") }
            total.append("")
            rows.append(total)
            out += "\n" + Self.align(rows, leftAligned: [0, header.count - 1])
        }
        var details: [String] = []
        for table in tables {
            if table.missing > 0 {
                details.append(Self.listLine(table.table, table.missing, "missing on the target", table.missingSysIDs))
            }
            if table.extra > 0 {
                details.append(Self.listLine(table.table, table.extra, "extra on the target", table.extraSysIDs))
            }
            if table.differing > 0 {
                details.append(
                    Self.listLine(table.table, table.differing, "differing", table.differingRows.map(\.sysID)))
                for row in table.differingRows {
                    details.append("  \(row.sysID)" + (row.targetSysID.map { " → \($0)" } ?? "") + ":")
                    for field in row.fields {
                        details.append("    \(field.field): " + Self.shown(field))
                    }
                }
            }
            if let mapping = table.mapping { details += Self.mappingLines(table.table, mapping) }
            if let whole = table.wholeRecord { details += Self.wholeRecordLines(table.table, whole) }
            if table.sourceHidden + table.targetHidden > 0 {
                details.append(
                    "\(table.table): \(table.sourceHidden) records hidden from the reader on the source, "
                        + "\(table.targetHidden) on the target: they cannot be compared")
            }
        }
        if !details.isEmpty { out += "\n" + details.joined(separator: "\n") + "\n" }
        if let failure {
            out += "\nfailed on \(failure.table) (exit \(failure.exitCode)): \(failure.message)\n"
            if !notRun.isEmpty { out += "not reconciled: \(notRun.joined(separator: ", "))\n" }
        }
        return out
    }

    /// What the maps made of a table, a line each: unmatched, kept, the target's own, ambiguous keys,
    /// cleared references.
    private static func mappingLines(_ table: String, _ mapping: TableReconciliationResult.Mapping) -> [String] {
        var lines: [String] = []
        if mapping.unmatched > 0 {
            lines.append(
                listLine(
                    table, mapping.unmatched, "unmatched (not migrated: on_missing: skip)",
                    mapping.unmatchedRecords.map { "\($0.sysID) (\($0.key))" }))
        }
        if mapping.kept > 0 {
            lines.append("\(table): \(mapping.kept) kept as the target had them (on_match: keep), not compared")
        }
        if mapping.targetOwn > 0 {
            lines.append(
                listLine(
                    table, mapping.targetOwn, "the target's own (no source record maps to them)",
                    mapping.targetOwnSysIDs))
        }
        if mapping.ambiguous > 0 {
            lines.append(
                listLine(
                    table, mapping.ambiguous, "ambiguous key\(mapping.ambiguous == 1 ? "" : "s") on the target",
                    mapping.ambiguousKeys.map { "\($0.key) (\($0.sysIDs.joined(separator: ", ")))" }))
        }
        let cleared = mapping.cleared.values.reduce(0, +)
        if cleared > 0 {
            let fields = mapping.cleared.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            lines.append(
                "\(table): \(cleared) reference\(cleared == 1 ? "" : "s") cleared by the migration "
                    + "(on_unresolved: clear): \(fields.joined(separator: ", "))")
        }
        return lines
    }

    /// The whole-record lines of a table: each kind's counts, then its first differences.
    static func wholeRecordLines(_ table: String, _ whole: WholeRecordComparison) -> [String] {
        var lines: [String] = []
        for (name, counts) in [("attachments", whole.attachments), ("journal entries", whole.journal)] {
            guard let counts else { continue }
            lines.append(
                "\(table) \(name): \(counts.source) on the source, \(counts.target) on the target, "
                    + "\(counts.matching) equal, \(counts.missing) missing, \(counts.extra) extra, "
                    + "\(counts.differing) differing")
        }
        for difference in whole.differences {
            lines.append(
                "  \(difference.kind) \(difference.sysID) of record \(difference.record): \(difference.problem)")
        }
        return lines
    }

    private static func listLine(_ table: String, _ count: Int, _ what: String, _ sysIDs: [String]) -> String {
        var line = "\(table): \(count) \(what)"
        if !sysIDs.isEmpty { line += ": " + sysIDs.joined(separator: ", ") }
        if sysIDs.count < count { line += " (first \(sysIDs.count) listed)" }
        return line
    }

    private static func shown(_ field: TableReconciliationResult.FieldDifference) -> String {
        if field.withheld { return "values withheld (credentials)" }
        func quoted(_ value: String?) -> String {
            guard let value else { return "(none)" }
            return PrintableText.doubleQuoted(value) { scalar in
                if scalar == "\r" { return "\\r" }
                guard scalar.value < 0x20 || scalar.value == 0x7F else { return nil }
                return String(format: "\\u%04X", scalar.value)
            }
        }
        return "source \(quoted(field.source)) · target \(quoted(field.target))"
            + (field.truncated ? " (cut)" : "")
    }

    private static func align(_ rows: [[String]], leftAligned: Set<Int>) -> String {
        let columns = rows.map(\.count).max() ?? 0
        let widths = (0..<columns).map { column in rows.map { $0.count > column ? $0[column].count : 0 }.max() ?? 0 }
        return rows.map { row in
            row.enumerated().map { column, cell in
                let pad = String(repeating: " ", count: widths[column] - cell.count)
                return leftAligned.contains(column) ? cell + pad : pad + cell
            }.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) + "\n"
        }.joined()
    }
}

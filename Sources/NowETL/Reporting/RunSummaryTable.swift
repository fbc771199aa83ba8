import Foundation

/// The summary table printed at the end of a run (a pure function of the result).
///
/// ```
/// run 20240301T020000Z-7f3a: ok (exit 0), 2200 rows in 1.9 s
///
/// table     status  rows  source  pages  retries  rejects  seconds  rows/s
/// incident  ok      2000  2000       4        0        0      1.6    1250
/// problem   ok       200  201 !      1        0        0      0.3     667
/// total              2200            5        0        0      1.9    1158
///
/// ! rows differ from the instance's count: records changed during the export, or were rejected.
/// 6 files, manifest out/demo/manifest.json
/// ```
///
/// When ACLs hid records from the reading user, a `hidden` column follows `source` (records the
/// instance counts but did not hand out, ``TableSummary/hiddenRows``); the `!` then marks only what
/// rows and hidden records do not explain. When a table delivered deletion records, a `deleted`
/// column follows `rows` (they are counted in `rows`). The last line says what was written: files,
/// and the database and instance tables loaded.
public enum RunSummaryTable {
    /// The marker after a source count that differs from the rows written.
    public static let mismatchMarker = "!"

    /// The summary text, ending with a line break.
    public static func render(_ result: PipelineRunResult) -> String {
        let totalRows = result.tables.reduce(0) { $0 + ($1.summary?.rows ?? 0) }
        var text =
            "run \(result.runID): \(statusWord(result.exitCode)) (exit \(result.exitCode)), \(totalRows) rows in "
            + "\(seconds(result.seconds)) s\n\n"

        let summaries = result.tables.compactMap(\.summary)
        let showsHidden = summaries.contains { $0.hiddenRows > 0 }
        let showsDeleted = summaries.contains { $0.deleted > 0 }
        var header = ["table", "status", "rows", "source", "pages", "retries", "rejects", "seconds", "rows/s"]
        if showsDeleted { header.insert("deleted", at: 3) }
        if showsHidden { header.insert("hidden", at: showsDeleted ? 5 : 4) }
        let rightAligned = Set(header.indices).subtracting([0, 1, header.firstIndex(of: "source") ?? 3])
        // `row` with the cells of the columns only some runs have: deleted (deletion records, within
        // rows) after rows, hidden after source.
        func withOptional(_ row: [String], deleted: String, hidden: String) -> [String] {
            var row = row
            if showsDeleted { row.insert(deleted, at: 3) }
            if showsHidden { row.insert(hidden, at: showsDeleted ? 5 : 4) }
            return row
        }
        var rows: [[String]] = []
        var mismatch = false
        for outcome in result.tables {
            guard let summary = outcome.summary else {
                let time = outcome.status == .failed ? seconds(outcome.seconds) : "-"
                rows.append(
                    withOptional(
                        [outcome.table, outcome.status.rawValue, "-", "-", "-", "-", "-", time, "-"], deleted: "-",
                        hidden: "-"))
                continue
            }
            var source = "-"
            if let count = summary.sourceCount {
                source = String(count)
                if count != summary.rows - summary.deleted + summary.hiddenRows {
                    source += " " + mismatchMarker
                    mismatch = true
                }
            }
            let row = [
                outcome.table, statusText(outcome.status), String(summary.rows), source,
                String(summary.counts[.pages]), String(summary.counts[.retries]), String(summary.rejects),
                seconds(summary.seconds),
                rate(rows: summary.rows, seconds: summary.seconds),
            ]
            rows.append(withOptional(row, deleted: String(summary.deleted), hidden: String(summary.hiddenRows)))
        }
        if summaries.count > 1 {
            let tableSeconds = summaries.reduce(0) { $0 + $1.seconds }
            let row = [
                "total", "", String(totalRows), "", String(summaries.reduce(0) { $0 + $1.counts[.pages] }),
                String(summaries.reduce(0) { $0 + $1.counts[.retries] }),
                String(summaries.reduce(0) { $0 + $1.rejects }),
                seconds(tableSeconds), rate(rows: totalRows, seconds: tableSeconds),
            ]
            rows.append(
                withOptional(
                    row, deleted: String(summaries.reduce(0) { $0 + $1.deleted }),
                    hidden: String(summaries.reduce(0) { $0 + $1.hiddenRows })))
        }
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { DisplayWidth.of($0[column]) }.max() ?? 0 }
        for row in all {
            var line = ""
            for (column, cell) in row.enumerated() {
                let pad = String(repeating: " ", count: widths[column] - DisplayWidth.of(cell))
                if column > 0 { line += "  " }
                line += rightAligned.contains(column) ? pad + cell : cell + pad
            }
            while line.hasSuffix(" ") { line.removeLast() }
            text += line + "\n"
        }
        text += "\n"
        if showsHidden {
            text += "hidden: records the instance counts that ACLs hid from this user (not exported).\n"
        }
        if mismatch {
            text +=
                "\(mismatchMarker) rows differ from the instance's count: records changed during the export, "
                + "or were rejected.\n"
        }
        for outcome in result.tables {
            guard let summary = outcome.summary else { continue }
            if let lowest = summary.lowestConcurrency, let configured = summary.concurrency, lowest < configured {
                text +=
                    "\(outcome.table): the instance answered 429; concurrency went down to \(lowest) of \(configured)\n"
            }
            if summary.counts[.pageSizeReductions] > 0 {
                text +=
                    "\(outcome.table): the instance gave up on \(summary.counts[.pageSizeReductions]) pages (cancelled "
                    + "transactions or cut bodies); they were fetched again at a smaller page size\n"
            }
            if summary.counts[.resumedPages] > 0 {
                text +=
                    "\(outcome.table): resumed, \(summary.counts[.resumedPages]) pages (\(summary.counts[.resumedRows]) rows) reused from the "
                    + "run journal\n"
            }
        }
        for outcome in result.tables where outcome.status == .failed {
            text += "\(outcome.table): error: \(outcome.error ?? "failed") (exit \(outcome.exitCode ?? 1))\n"
        }
        if result.tables.contains(where: { $0.status == .notCommitted }) {
            text +=
                "not_committed: a run commits all its tables or none; the next run reuses what was fetched "
                + "(--keep-going commits the tables that succeeded)\n"
        }
        if result.tables.contains(where: { $0.status == .notRun }) {
            text += "not_run: the run stops at the first failed table (--keep-going runs the rest)\n"
        }
        if let runError = result.runError { text += "error: \(runError)\n" }
        text += written(summaries, files: result.files.count)
        if let manifest = result.manifestPath {
            text += ", manifest \(manifest)\n"
        } else {
            text += "; no manifest written (the previous one is untouched)\n"
        }
        return text
    }

    /// What the run wrote: its files, and the database tables and instance tables it loaded, when any
    /// (`6 files, 2 database tables (2200 rows, 3 pruned), 1 instance table (200 records)`).
    static func written(_ summaries: [TableSummary], files: Int) -> String {
        func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
        var parts = [count(files, "file")]
        let loads = summaries.flatMap(\.databaseTables)
        if !loads.isEmpty {
            var detail = count(loads.reduce(0) { $0 + $1.rows }, "row")
            let deleted = loads.reduce(0) { $0 + $1.deleted + $1.pruned }
            if deleted > 0 { detail += ", \(deleted) deleted or pruned" }
            parts.append(count(loads.count, "database table") + " (\(detail))")
        }
        let migrated = summaries.flatMap(\.instanceTables)
        if !migrated.isEmpty {
            let records = migrated.reduce(0) { $0 + $1.inserted + $1.updated }
            parts.append(count(migrated.count, "instance table") + " (\(count(records, "record")) written)")
        }
        return parts.joined(separator: ", ")
    }

    /// The word for a run's exit code: `ok`, `finished with rejects over the threshold` or `failed`.
    public static func statusWord(_ exitCode: Int32) -> String {
        switch exitCode {
        case NowETLExitCode.ok: "ok"
        case NowETLExitCode.rejectsOverThreshold: "finished with rejects over the threshold"
        default: "failed"
        }
    }

    /// Seconds with one decimal (`1.6`), two below a second (`0.04`; `0.999` is `1.0`); `-` for a time
    /// that is none: not finite, negative, or 3e16 s and more (no run's time, and rounding it in an
    /// `Int` would trap).
    public static func seconds(_ value: Double) -> String {
        guard value.isFinite, value >= 0, value < 3e16 else { return "-" }
        let digits = value < 0.995 ? 2 : 1
        let scale = digits == 2 ? 100.0 : 10.0
        let scaled = Int((value * scale).rounded())
        let whole = scaled / Int(scale)
        let fraction = String(scaled % Int(scale))
        return "\(whole)." + String(repeating: "0", count: digits - fraction.count) + fraction
    }

    /// Rows per second as a whole number, `-` without time.
    public static func rate(rows: Int, seconds: Double) -> String {
        guard seconds > 0, seconds.isFinite else { return "-" }
        return String(Int((Double(rows) / seconds).rounded()))
    }

    private static func statusText(_ status: TableOutcome.Status) -> String {
        switch status {
        case .rejectsOverThreshold: "rejects"
        default: status.rawValue
        }
    }
}

import Foundation
import NowData

extension NowETLCommand {
    /// `nowetl state show|set|reset`: the incremental tables' state file, without a request to the
    /// instance.
    ///
    /// `show` only reads. `set` and `reset` change the file the way a run's commit would — holding the
    /// output directory's lock, after finishing a commit a crashed run left (it may rename a staged
    /// `state.json` into place, which the change must start from) — and remove the tables' run
    /// journals: a journal belongs to the window of the state it was started from, and resuming it
    /// after the state moved would deliver that old window.
    static func state(
        _ options: NowETLArguments.StateOptions, environment: [String: String], streams: CommandStreams
    ) -> Int32 {
        guard
            let configuration = load(
                options.pipeline, overrides: options.overrides, environment: environment, streams: streams)
        else {
            return NowETLExitCode.configuration
        }
        let incremental = configuration.tables.filter { $0.incremental != nil }
        var selected = incremental
        if let name = options.table {
            guard let table = incremental.first(where: { $0.table == name }) else {
                return fail(notIncremental(name, in: configuration), code: NowETLExitCode.usage, streams: streams)
            }
            selected = [table]
        }
        switch options.action {
        case .show:
            return showState(options, configuration: configuration, streams: streams)
        case .set(let cursor):
            return changeState(
                configuration, pipeline: options.pipeline, tables: selected, command: "set", streams: streams
            ) { state in
                selected.map { setCursor(cursor, of: $0, in: &state) }
            }
        case .reset:
            let all = options.table == nil
            return changeState(
                configuration, pipeline: options.pipeline, tables: selected, command: "reset", streams: streams
            ) { state in
                var lines = selected.map { table in
                    let removed = state.tables.removeValue(forKey: table.table)
                    // The deletions' cursor stays: the next run reads the whole table again, and the
                    // deletions since the last run are still delivered, so a consumer that applies the
                    // runs keeps no record that was deleted meanwhile.
                    if let removed, removed.deletesCursor != nil, table.incremental?.deletes == true {
                        state.tables[table.table] = IncrementalTableState(
                            cursorField: table.incremental?.cursor ?? removed.cursorField, runID: "",
                            deletesCursor: removed.deletesCursor, deletesSysID: removed.deletesSysID,
                            filter: table.filter)
                        return describeReset(table.table, removed: removed)
                            + "; the deletions' cursor \(IncrementalStateReport.value(removed.deletesCursor)) is kept"
                    }
                    return describeReset(table.table, removed: removed)
                }
                if all {
                    let done = Set(selected.map(\.table))
                    for name in state.tables.keys.sorted() where !done.contains(name) {
                        lines.append(describeReset(name, removed: state.tables.removeValue(forKey: name)))
                    }
                }
                return lines
            }
        }
    }

    /// Why `--table name` is refused, naming the pipeline's incremental tables.
    private static func notIncremental(_ name: String, in configuration: PipelineConfiguration) -> String {
        let names = configuration.tables.filter { $0.incremental != nil }.map(\.table)
        let known =
            names.isEmpty
            ? "the pipeline has no incremental tables (mode: incremental)"
            : "its incremental tables are \(names.joined(separator: ", "))"
        if configuration.tables.contains(where: { $0.table == name }) {
            return "--table \(name): the table is not incremental (mode: full); \(known)"
        }
        return "--table \(name): the pipeline has no table '\(name)'; \(known)"
    }

    private static func showState(
        _ options: NowETLArguments.StateOptions, configuration: PipelineConfiguration, streams: CommandStreams
    ) -> Int32 {
        let directory = configuration.outputDirectory
        let state: IncrementalState
        do {
            state = try IncrementalState.read(outputDirectory: directory)
        } catch {
            return fail(error.description, code: error.exitCode, streams: streams)
        }
        let report = IncrementalStateReport(
            configuration: configuration, state: state, table: options.table,
            stateFile: IncrementalState.path(outputDirectory: directory),
            pendingCommit: FileManager.default.fileExists(atPath: RunCommit.recordPath(outputDirectory: directory)))
        streams.standardOutput(options.format == .json ? report.json() : report.text())
        return NowETLExitCode.ok
    }

    /// Changes the state file under the output directory's lock: finishes an interrupted commit, reads
    /// the state, lets `change` edit it (returning one line per table), removes the journals of `tables`,
    /// writes the state when it changed, and prints the lines.
    private static func changeState(
        _ configuration: PipelineConfiguration, pipeline: String, tables: [TableConfiguration], command: String,
        streams: CommandStreams, change: (inout IncrementalState) -> [String]
    ) -> Int32 {
        let directory = configuration.outputDirectory
        // A reset of a pipeline that never ran has nothing to change: do not create its output_dir.
        if command == "reset", !FileManager.default.fileExists(atPath: directory) {
            var empty = IncrementalState()
            streams.standardOutput(change(&empty).map { $0 + "\n" }.joined())
            return NowETLExitCode.ok
        }
        let lock: OutputDirectoryLock
        do {
            lock = try OutputDirectoryLock.acquire(
                directory: directory, runID: "state-\(command)", started: Date(),
                pipeline: OutputDirectoryLock.pipelineIdentity(of: pipeline),
                directoryMode: OwnFiles.directoryMode(forFileMode: configuration.fileMode))
        } catch {
            return fail(error.description, code: error.exitCode, streams: streams)
        }
        defer { lock.release() }
        if let holder = lock.previousHolder {
            streams.standardError.writeLine(
                "nowetl: took over the output_dir lock of a run that did not finish (\(holder))")
        }
        do {
            if let record = try RunCommit.recover(outputDirectory: directory) {
                streams.standardError.writeLine(
                    "nowetl: completed the commit of run \(record.runID), which was interrupted while committing "
                        + "(\(record.files.count) files)")
            }
        } catch {
            return fail(
                NowETLError.text(of: error, after: "cannot complete an interrupted commit"),
                code: NowETLExitCode.failed, streams: streams)
        }
        var state: IncrementalState
        do {
            state = try IncrementalState.read(outputDirectory: directory)
        } catch {
            return fail(error.description, code: error.exitCode, streams: streams)
        }
        let before = state
        var lines = change(&state)
        // The journals go before the state changes: a failure in between leaves the old state and no
        // journal, so the next run starts a new window from the old state instead of resuming one that
        // belongs to neither.
        for table in tables {
            let journal = TableJournal.directory(outputDirectory: directory, table: table.table)
            guard FileManager.default.fileExists(atPath: journal) else { continue }
            do {
                try TableJournal.removeDirectory(journal)
            } catch {
                return fail(error.description, code: NowETLExitCode.failed, streams: streams)
            }
            lines.append("\(table.table): removed the run journal of an interrupted run (\(journal))")
        }
        if state != before {
            do {
                try state.write(outputDirectory: directory)
            } catch {
                return fail(NowETLError.text(of: error), code: NowETLExitCode.code(for: error), streams: streams)
            }
        }
        streams.standardOutput(lines.map { $0 + "\n" }.joined())
        return NowETLExitCode.ok
    }

    /// Sets `table`'s cursor to `cursor` (the whole second: no sys_id) and says what changed.
    ///
    /// A table without a state gets one, as if a run had delivered up to just before `cursor`: the
    /// next run reads from `cursor`, and with `deletes: true` takes the deletions from `cursor` too.
    private static func setCursor(_ cursor: String, of table: TableConfiguration, in state: inout IncrementalState)
        -> String
    {
        let settings = table.incremental ?? IncrementalConfiguration()
        let old = state.tables[table.table]
        var new =
            old ?? IncrementalTableState(cursorField: settings.cursor, runID: "", rows: 0, filter: table.filter)
        if old == nil, settings.deletes { new.deletesCursor = cursor }
        new.cursorField = settings.cursor
        new.cursor = cursor
        new.sysID = nil
        state.tables[table.table] = new
        var line = "\(table.table): "
        if let old {
            if old.cursorField != new.cursorField {
                line += "cursor field \(old.cursorField) → \(new.cursorField); "
            }
            line += "cursor \(IncrementalStateReport.value(old.cursor))"
            if let sysID = old.sysID { line += ", sys_id \(sysID)" }
            line += " → \(cursor), no sys_id"
        } else {
            line += "no state → cursor \(cursor), no sys_id"
            if settings.deletes { line += ", deletions cursor \(cursor)" }
        }
        return line + " (the next run reads \(IncrementalStateReport.nextRead(new, settings: settings)))"
    }

    /// What resetting a table's state did.
    private static func describeReset(_ table: String, removed: IncrementalTableState?) -> String {
        guard let removed, removed.cursor != nil || !removed.runID.isEmpty else {
            return "\(table): no state (the next run reads the whole table)"
        }
        var line = "\(table): cursor \(IncrementalStateReport.value(removed.cursor))"
        if let sysID = removed.sysID { line += ", sys_id \(sysID)" }
        if !removed.runID.isEmpty { line += " (run \(removed.runID))" }
        return line + " → no state (the next run reads the whole table)"
    }
}

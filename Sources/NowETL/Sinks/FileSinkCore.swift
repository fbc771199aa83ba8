import Foundation
import NowQuery

/// What every file sink shares: path templating and confinement, part files and splitting, staging for
/// the run's commit, the file descriptions. The format lives in a ``RowEncoder``.
///
/// States: `closed` → ``open(schema:context:)`` → `open` → ``prepare()`` → `prepared` → ``commit()`` →
/// `closed`; a failed write makes it `failed` (only ``abort()`` is left), and ``abort()`` returns to
/// `closed` from any state, removing every temporary file it still owns.
final class FileSinkCore {
    let options: FileSinkOptions
    let encoder: any RowEncoder
    private var state = State.closed
    private var schema = RowSchema(columns: [])
    private var context = SinkContext(table: "", runID: "", runStarted: Date(timeIntervalSince1970: 0))
    private var runDate = ""
    private var outputDirectory = ""
    private var current: PartOutput?
    private var finished: [PartOutput] = []
    private var nextPart = 1
    private var prepared = PreparedOutput()

    private enum State { case closed, open, failed, prepared }

    init(options: FileSinkOptions, encoder: any RowEncoder) {
        self.options = options
        self.encoder = encoder
    }

    deinit {
        abort()
    }

    func open(schema: RowSchema, context: SinkContext) throws {
        guard state == .closed else {
            throw NowETLError(
                .misuse, path: options.path.text,
                "sink for \(options.path.text) opened for \(context.table) before committing or aborting \(self.context.table)"
            )
        }
        self.schema = schema
        self.context = context
        runDate = TableAPIDateFormat.dateString(fromSeconds: context.runStartedSeconds)
        let directory =
            options.outputDirectory.hasPrefix("/")
            ? options.outputDirectory : FileManager.default.currentDirectoryPath + "/" + options.outputDirectory
        outputDirectory = directory.hasSuffix("/") && directory.count > 1 ? String(directory.dropLast()) : directory
        let firstPath = try path(forPart: 1)
        try encoder.open(schema: schema, context: context, displayPath: firstPath)
        nextPart = 1
        finished = []
        current = nil
        state = .open
    }

    func write(_ batch: RowBatch) throws {
        try require(.open, for: .write)
        do {
            guard batch.columnCount == schema.count else {
                throw NowETLError(
                    .misuse, path: options.path.text,
                    "batch for \(context.table) has \(batch.columnCount) columns, the schema \(schema.count)")
            }
            for row in 0..<batch.count {
                let part = try current ?? startPart()
                try encoder.encode(batch, row: row, into: part)
                part.rows += 1
                try part.flushIfFull()
                if try partIsFull(part) { try closePart() }
            }
        } catch {
            state = .failed
            throw error
        }
    }

    func prepare() throws -> PreparedOutput {
        try require(.open, for: .prepare)
        do {
            if current == nil && finished.isEmpty { _ = try startPart() }  // an empty table still gets its file
            if current != nil { try closePart() }
        } catch {
            abort()
            throw error
        }
        // Every part is complete and synced under its temporary name; the run's commit renames them.
        let files = finished.map { part in
            OutputFile(
                path: part.relativePath, absolutePath: part.file.targetPath, table: context.table,
                format: encoder.format, part: options.split == .none ? nil : part.number, rows: part.rows,
                bytes: part.file.byteCount, sha256: part.file.digest?.hexString ?? "")
        }
        prepared = PreparedOutput(
            staged: finished.map(\.file.stagedFile), removals: staleParts(after: finished.count),
            artifacts: files.map(Artifact.file))
        state = .prepared
        return prepared
    }

    func commit() throws -> [Artifact] {
        try require(.prepared, for: .commit)
        for part in finished { try part.file.release() }
        let artifacts = prepared.artifacts
        finished = []
        prepared = PreparedOutput()
        state = .closed
        return artifacts
    }

    func abort() {
        if current != nil { encoder.abandonPart() }
        current?.file.abort()
        current = nil
        for part in finished { part.file.abort() }
        finished = []
        prepared = PreparedOutput()
        state = .closed
    }

    private enum Step: String { case write, prepare, commit }

    /// Throws a misuse error unless the sink is in `expected` for `step`, naming the state it is in.
    private func require(_ expected: State, for step: Step) throws(NowETLError) {
        guard state != expected else { return }
        let path = options.path.text
        let message =
            switch state {
            case .failed: "cannot \(step.rawValue) \(path) after a failed write; abort it"
            case .prepared: "\(step.rawValue) of the sink for \(path) after prepare"
            case .closed, .open:
                "\(step.rawValue) of the sink for \(path) before \(expected == .prepared ? "prepare" : "open")"
            }
        throw NowETLError(.misuse, path: path, message)
    }

    // MARK: - Parts

    private func startPart() throws -> PartOutput {
        let number = nextPart
        let relative = try path(forPart: number)
        let target = outputDirectory + "/" + relative
        try createDirectory(for: target, relative: relative)
        let part = try PartOutput(
            targetPath: target, relativePath: relative, number: number, compression: options.effectiveCompression,
            split: options.split, mode: options.fileMode)
        current = part
        nextPart += 1
        try encoder.beginPart(part)
        return part
    }

    private func closePart() throws {
        guard let part = current else { return }
        try encoder.endPart(part)
        _ = try part.finish()
        finished.append(part)
        current = nil
    }

    private func partIsFull(_ part: PartOutput) throws -> Bool {
        switch options.split {
        case .none:
            return false
        case .rows(let limit):
            return part.rows >= limit
        case .bytes(let limit):
            try encoder.flushForSizeCheck(part)
            return try part.reaches(bytes: limit)
        }
    }

    /// The relative path of part `number` (numbered only when the output is split).
    func path(forPart number: Int) throws -> String {
        try options.path.resolve(
            table: context.table, runDate: runDate, runID: context.runID, part: options.split == .none ? nil : number)
    }

    private func createDirectory(for target: String, relative: String) throws {
        guard let slash = target.lastIndex(of: "/") else { return }
        let directory = String(target[..<slash])
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue {
            return
        }
        do {
            try OwnFiles.makeDirectories(directory, mode: OwnFiles.directoryMode(forFileMode: options.fileMode))
        } catch {
            throw NowETLError(
                .io, path: relative, "cannot create the directory \(directory) for \(relative)", cause: error)
        }
    }

    /// The parts numbered above `count` that an earlier run of the same split output left: the paths
    /// of the consecutive parts `count + 1`, `count + 2`, … that exist. The run's commit removes them
    /// after the renames, so nothing changes before it.
    private func staleParts(after count: Int) -> [String] {
        guard options.split != .none else { return [] }
        var stale: [String] = []
        var number = count + 1
        while let relative = try? path(forPart: number) {
            let target = outputDirectory + "/" + relative
            var info = stat()
            guard lstat(target, &info) == 0 else { break }
            stale.append(target)
            number += 1
        }
        return stale
    }
}

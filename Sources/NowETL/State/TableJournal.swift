import Foundation
import NowQuery

#if canImport(Glibc)
    import Glibc
#endif

/// How a table's run journal was found at the start of its extraction.
public enum ResumeState: Sendable, Hashable {
    /// No journal (or `--restart`): the table starts from the beginning.
    case fresh
    /// An interrupted run's journal is continued: `pages` and `rows` were already fetched;
    /// `partsRestarted` spill parts failed their digest check and are fetched again.
    case resumed(pages: Int, rows: Int, partsRestarted: Int)
    /// A journal was there but could not be used (another plan, unreadable), and was discarded.
    case discarded(reason: String)
}

/// What a table's extraction has safely on disk: per sys_id range ("part"), the spill part holding
/// its pages, the committed length and SHA-256 of that spill, and the cursor (the last sys_id) to
/// continue after — so a run that crashed or was stopped continues where it was instead of starting
/// over.
///
/// Layout: `<output_dir>/.nowetl/tables/<table>/journal.jsonl` and `part-<id>.spill` beside it. The
/// journal is append-only JSON lines:
///
/// - `{"kind":"table","plan":…}` first: the fingerprint of everything that shapes the rows (instance,
///   filter, fields, types, page size). A journal of another plan is discarded, never mixed in.
/// - `{"kind":"part","part":3,"lower":…,"upper":…}` declares a range; `{"kind":"split","part":3,"upper":…}`
///   shrinks one when work stealing gives its upper end to a new part (declared right after).
/// - `{"kind":"page","part":3,"bytes":…,"sha256":…,"cursor":…,…}` after every page appended to the
///   spill: the part's cumulative state. `{"kind":"done","part":3,"hidden":…}` when the range is
///   exhausted, with the records hidden from the reader in it.
///
/// Rules, so that whatever instant a crash hits, a resumed run is correct:
/// * A page is appended to its spill **before** its journal line; a spill longer than the journal says
///   is cut back (the page is fetched again), one whose journaled prefix no longer hashes to the
///   recorded digest is fetched from the start.
/// * A torn last line (a crash mid-write) is ignored; any other unreadable line discards the journal.
/// * A split is journaled before the new part: a crash in between leaves a gap in the key space, and
///   ``open(directory:fingerprint:partitions:restart:window:keySpace:)`` declares a part for every gap, so no key
///   range is ever lost; overlapping ranges (never written) discard the journal.
/// * Nothing is synced: a kill leaves every written byte in the page cache, and a power cut at worst
///   loses a tail that the digests then reject. The run's commit syncs what it publishes.
///
/// Thread safety: partition tasks call it concurrently; every method takes `lock`, and the only
/// state outside it (the directory path) is immutable, hence `@unchecked Sendable`.
final class TableJournal: @unchecked Sendable {
    /// One sys_id range's state.
    struct Part: Sendable, Hashable {
        var id: Int
        var range: SysIDRange
        /// The last sys_id fetched, `nil` before the first page.
        var cursor: SysID?
        /// Journaled bytes of the spill part and their SHA-256 (hex).
        var length = 0
        var digest = SHA256().finalizedCopy.hexString
        var pages = 0
        var rows = 0
        var rejects = 0
        var requests = 0
        /// Records the instance counts in the range that were hidden from the reader (ACLs), found when
        /// the range was done.
        var hidden = 0
        var done = false
        /// For an incremental table: the greatest `(cursor, sys_id)` of the records journaled.
        var high: CursorMark?
    }

    /// The table's state directory.
    let directory: String
    private let lock = NSLock()
    private var parts: [Int: Part] = [:]
    private var nextID = 0
    /// Hashers of the spill prefixes ``open(directory:fingerprint:partitions:restart:window:keySpace:)`` verified, handed
    /// to ``spillWriter(for:)`` so a resumed spill is read once, not twice.
    private var verified: [Int: SHA256] = [:]
    private var descriptor: Int32 = -1
    /// The incremental window the journal's pages were fetched in (kept in its header).
    private var window: IncrementalWindow?
    /// The journal's identity: random when the journal starts fresh, kept in its header (`"id"`) and
    /// restored on resume — so a rerun that continues this journal is the same load for a database
    /// sink (``SinkContext/loadID``), and the next fresh run is another. A journal written before ids
    /// existed gets a new one when resumed.
    private(set) var id = UUID().uuidString.lowercased()

    private init(directory: String) {
        self.directory = directory
    }

    deinit {
        if descriptor >= 0 { Glibc.close(descriptor) }
    }

    /// `<output_dir>/.nowetl/tables/<table>`.
    static func directory(outputDirectory: String, table: String) -> String {
        let base = RunCommit.absolute(outputDirectory)
        let safe = String(table.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" ? $0 : "_" })
        return base + "/.nowetl/tables/" + safe
    }

    /// Opens the journal in `directory`: resumes a journal of the same `fingerprint` (verifying every
    /// spill against its digest), otherwise — or with `restart` — removes it and starts over with
    /// `partitions`. The journal is then rewritten compactly (one line per part).
    ///
    /// `keySpace` is the range the partitions cover (a shard's key range; the whole key space by
    /// default): the gaps a crash can leave are filled within it, never beyond.
    static func open(
        directory: String, fingerprint: String, partitions: [SysIDRange], restart: Bool,
        window: IncrementalWindow? = nil, keySpace: SysIDRange = SysIDRange()
    ) throws(NowETLError) -> (TableJournal, ResumeState) {
        let journal = TableJournal(directory: directory)
        journal.window = window
        var opening = ResumeState.fresh
        let path = directory + "/journal.jsonl"
        if !restart, let text = try? String(contentsOfFile: path, encoding: .utf8) {
            switch replay(text, fingerprint: fingerprint) {
            case .success(let replayed):
                if let first = text.split(separator: "\n", maxSplits: 1).first,
                    let header = try? JSONDecoder().decode(Entry.self, from: Data(first.utf8)), let id = header.id
                {
                    journal.id = id
                }
                var restarted = 0
                var parts = replayed
                for index in parts.indices {
                    let id = parts[index].id
                    let hasher = SpillReader.hasher(of: journal.spillPath(id), length: parts[index].length)
                    if let hasher, hasher.finalizedCopy.hexString == parts[index].digest {
                        journal.verified[id] = hasher
                    } else {
                        parts[index] = Part(id: id, range: parts[index].range)
                        restarted += 1
                    }
                }
                parts = fillingGaps(parts, within: keySpace)
                journal.parts = Dictionary(uniqueKeysWithValues: parts.map { ($0.id, $0) })
                journal.nextID = (parts.map(\.id).max() ?? -1) + 1
                opening = .resumed(
                    pages: parts.reduce(0) { $0 + $1.pages }, rows: parts.reduce(0) { $0 + $1.rows },
                    partsRestarted: restarted)
            case .failure(let reason):
                opening = .discarded(reason: reason.reason)
            }
        }
        if case .resumed = opening {
            // Spills of parts not in the journal (a crash before their declaration) are dropped below.
        } else {
            try removeDirectory(directory)
            for range in partitions {
                journal.parts[journal.nextID] = Part(id: journal.nextID, range: range)
                journal.nextID += 1
            }
        }
        try journal.rewrite(fingerprint: fingerprint)
        return (journal, opening)
    }

    /// The incremental window recorded in the header of the journal in `directory`, if there is a
    /// journal and it has one: a rerun of an interrupted incremental run reads the same window (its
    /// signpost especially), so the journal's pages still belong to it and it resumes.
    static func recordedWindow(directory: String) -> IncrementalWindow? {
        guard let text = try? String(contentsOfFile: directory + "/journal.jsonl", encoding: .utf8),
            let first = text.split(separator: "\n", maxSplits: 1).first,
            let header = try? JSONDecoder().decode(Entry.self, from: Data(first.utf8)), header.kind == "table",
            let window = header.window
        else { return nil }
        return try? JSONDecoder().decode(IncrementalWindow.self, from: Data(window.utf8))
    }

    /// Removes a table's state directory (spills and journal), if any.
    static func removeDirectory(_ directory: String) throws(NowETLError) {
        guard FileManager.default.fileExists(atPath: directory) else { return }
        do {
            try FileManager.default.removeItem(atPath: directory)
        } catch {
            throw NowETLError(.io, path: directory, "cannot remove the run journal \(directory)", cause: error)
        }
    }

    /// What the journals under `<output_dir>/.nowetl/tables` hold, for the log of a stopped run.
    static func summaries(outputDirectory: String) -> [(table: String, pages: Int, rows: Int)] {
        let root = directory(outputDirectory: outputDirectory, table: "")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).sorted()
        return names.compactMap { name in
            guard let text = try? String(contentsOfFile: root + name + "/journal.jsonl", encoding: .utf8),
                case .success(let parts) = replay(text, fingerprint: nil)
            else { return nil }
            return (name, parts.reduce(0) { $0 + $1.pages }, parts.reduce(0) { $0 + $1.rows })
        }
    }

    /// Removes the journals of tables that are not in `tables` (the pipeline no longer exports them,
    /// so nothing would ever resume or clear them); returns the directories removed.
    static func removeJournals(outputDirectory: String, except tables: [String]) -> [String] {
        let root = directory(outputDirectory: outputDirectory, table: "")
        let kept = Set(
            tables.map { (directory(outputDirectory: outputDirectory, table: $0) as NSString).lastPathComponent })
        var removed: [String] = []
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).sorted()
        where !kept.contains(name) {
            if (try? removeDirectory(root + name)) != nil { removed.append(root + name) }
        }
        return removed
    }

    // MARK: - State

    /// Every part, in sys_id order.
    var allParts: [Part] {
        lock.withLock { Self.ordered(Array(parts.values)) }
    }

    /// The spill of every part with its journaled length, in sys_id order: what a join replays.
    var spills: [(path: String, length: Int)] {
        allParts.map { (spillPath($0.id), $0.length) }
    }

    /// The part `id`.
    func part(_ id: Int) -> Part? {
        lock.withLock { parts[id] }
    }

    /// The absolute path of part `id`'s spill.
    func spillPath(_ id: Int) -> String {
        directory + "/part-\(id).spill"
    }

    /// Opens part `id`'s spill for appending after its journaled bytes.
    func spillWriter(for id: Int) throws(NowETLError) -> SpillWriter {
        guard let part = part(id) else { throw NowETLError(.misuse, path: directory, "no part \(id) in the journal") }
        let path = spillPath(id)
        let kept = lock.withLock { verified.removeValue(forKey: id) }
        guard let hasher = kept ?? SpillReader.hasher(of: path, length: part.length) else {
            throw NowETLError(.io, path: path, "spill part \(path) is shorter than its journal says")
        }
        return try SpillWriter(path: path, keeping: part.length, hasher: hasher)
    }

    /// Appends a page to part `id`'s spill and journals it — if the part's upper bound is still
    /// `expectedUpper`; returns `false` (writing nothing) when a split moved it meanwhile, so the caller
    /// filters the page against the new bound and tries again. Splits take the same lock, so a page
    /// and a split never cross.
    func appendPage(
        _ id: Int, frame: [UInt8], to spill: SpillWriter, expectedUpper: SysID?, cursor: SysID?, rows: Int,
        rejects: Int, requests: Int, high: CursorMark? = nil
    ) throws(NowETLError) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard var part = parts[id] else { throw NowETLError(.misuse, path: directory, "no part \(id) in the journal") }
        guard part.range.upperBound == expectedUpper else { return false }
        try spill.append(frame)
        CrashPoint.reached("spill-appended")
        part.length = spill.length
        part.digest = spill.digest.hexString
        if let cursor { part.cursor = cursor }
        part.pages += 1
        part.rows += rows
        part.rejects += rejects
        part.requests += requests
        part.high = CursorMark.max(part.high, high)
        parts[id] = part
        try appendLocked(Entry(page: part))
        return true
    }

    /// Records that part `id`'s range is exhausted (`requests`: those not journaled with a page;
    /// `hidden`: records of the range hidden from the reader) — if its upper bound is still
    /// `expectedUpper`; returns `false` (recording nothing) when a split moved it meanwhile, so the
    /// caller counts the range again.
    @discardableResult
    func recordDone(_ id: Int, requests: Int = 0, hidden: Int = 0, expectedUpper: SysID?? = nil)
        throws(NowETLError) -> Bool
    {
        lock.lock()
        defer { lock.unlock() }
        guard var part = parts[id] else { return true }
        if let expectedUpper, part.range.upperBound != expectedUpper { return false }
        part.done = true
        part.requests += requests
        part.hidden = hidden
        parts[id] = part
        var entry = Entry(kind: "done", part: id, requests: part.requests)
        entry.hidden = hidden
        try appendLocked(entry)
        return true
    }

    /// Gives the keys from `bound` on of part `id` to a new part and returns it, journaling the shrink
    /// before the new part; `nil` when the part is done or its cursor already reached `bound`.
    func split(_ id: Int, at bound: SysID) throws(NowETLError) -> Part? {
        lock.lock()
        defer { lock.unlock() }
        guard var victim = parts[id], !victim.done, let cursor = victim.cursor, cursor < bound,
            victim.range.upperBound.map({ bound < $0 }) ?? true
        else { return nil }
        let new = Part(id: nextID, range: SysIDRange(lowerBound: bound, upperBound: victim.range.upperBound))
        nextID += 1
        victim.range.upperBound = bound
        parts[id] = victim
        parts[new.id] = new
        try appendLocked(Entry(kind: "split", part: id, upper: bound))
        try appendLocked(Entry(declaring: new))
        return new
    }

    /// Closes the journal file.
    func close() {
        lock.withLock {
            if descriptor >= 0 { Glibc.close(descriptor) }
            descriptor = -1
        }
    }

    // MARK: - File

    private struct Entry: Codable {
        var kind: String
        var plan: String?
        var part: Int?
        var lower: String?
        var upper: String?
        var cursor: String?
        var bytes: Int?
        var sha256: String?
        var pages: Int?
        var rows: Int?
        var rejects: Int?
        var requests: Int?
        var hidden: Int?
        var done: Bool?
        /// `high` and `high_sys_id`: ``Part/high``.
        var high: String?
        var highSysID: String?
        /// The header's incremental window (``IncrementalWindow``, JSON), when the table is incremental.
        var window: String?
        /// The header's journal id (``TableJournal/id``); absent in journals written before it existed.
        var id: String?

        enum CodingKeys: String, CodingKey {
            case kind, plan, part, lower, upper, cursor, bytes, sha256, pages, rows, rejects, requests, hidden, done
            case high
            case highSysID = "high_sys_id"
            case window, id
        }

        init(kind: String, plan: String? = nil, part: Int? = nil, upper: String? = nil, requests: Int? = nil) {
            self.kind = kind
            self.plan = plan
            self.part = part
            self.upper = upper
            self.requests = requests
        }

        init(declaring part: Part) {
            kind = "part"
            self.part = part.id
            lower = part.range.lowerBound
            upper = part.range.upperBound
        }

        init(page part: Part) {
            kind = "page"
            self.part = part.id
            cursor = part.cursor
            bytes = part.length
            sha256 = part.digest
            pages = part.pages
            rows = part.rows
            rejects = part.rejects
            requests = part.requests
            high = part.high?.value
            highSysID = part.high?.sysID
        }

        /// The whole state of a part in one line (a compacted journal).
        init(state part: Part) {
            self.init(page: part)
            kind = "state"
            lower = part.range.lowerBound
            upper = part.range.upperBound
            done = part.done
            hidden = part.hidden
        }
    }

    /// Appends one line; the caller holds `lock`.
    private func appendLocked(_ entry: Entry) throws(NowETLError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard var line = try? encoder.encode(entry) else {
            throw NowETLError(.misuse, path: directory, "cannot encode a journal line")
        }
        line.append(0x0A)
        guard descriptor >= 0 else { throw NowETLError(.misuse, path: directory, "the run journal is closed") }
        if let failure = line.withUnsafeBytes({ FileDescriptorIO.writeAll(descriptor, $0) }) {
            throw NowETLError.io("append to the run journal", path: directory + "/journal.jsonl", errno: failure)
        }
    }

    /// Writes the journal anew (temporary file, rename) from the parts in memory, and opens it for appending.
    private func rewrite(fingerprint: String) throws(NowETLError) {
        try OwnFiles.makeDirectories(directory)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var text = Data()
        var header = Entry(kind: "table", plan: fingerprint)
        header.id = id
        if let window, let data = try? encoder.encode(window) {
            header.window = String(decoding: data, as: UTF8.self)
        }
        let entries = [header] + allParts.map { Entry(state: $0) }
        for entry in entries {
            guard let line = try? encoder.encode(entry) else {
                throw NowETLError(.misuse, path: directory, "cannot encode a journal line")
            }
            text.append(line)
            text.append(0x0A)
        }
        let path = directory + "/journal.jsonl"
        // A new temporary name (O_EXCL), never a fixed one opened with O_TRUNC: a link planted there
        // would have its target truncated.
        do {
            try AtomicFile.holding(text, targetPath: path, displayPath: path, mode: OwnFiles.privateFileMode)
                .commitOrAbort()
        } catch {
            throw error as? NowETLError
                ?? NowETLError(.io, path: path, "cannot write the run journal \(path)", cause: error)
        }
        // Spills of parts the journal does not know (declared after the last journaled line) are stale.
        let known = Set(lock.withLock { parts.keys }.map { "part-\($0).spill" })
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        where name.hasSuffix(".spill") && !known.contains(name) {
            unlink(directory + "/" + name)
        }
        let appending = try OwnFiles.open(path, O_WRONLY | O_APPEND, action: "open the run journal")
        lock.withLock {
            if descriptor >= 0 { Glibc.close(descriptor) }
            descriptor = appending
        }
    }

    // MARK: - Replay

    /// The parts a journal's text describes, or why it cannot be used.
    private static func replay(_ text: String, fingerprint: String?) -> Result<[Part], ReplayFailure> {
        let decoder = JSONDecoder()
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.last == "" { lines.removeLast() }
        var parts: [Int: Part] = [:]
        for (number, line) in lines.enumerated() {
            guard let entry = try? decoder.decode(Entry.self, from: Data(line.utf8)) else {
                // A torn last line is a crash mid-write; anything else is damage.
                if number == lines.count - 1 && number > 0 && !text.hasSuffix("\n") { break }
                return .failure(ReplayFailure("line \(number + 1) of the journal is unreadable"))
            }
            if number == 0 {
                guard entry.kind == "table" else { return .failure(ReplayFailure("the journal has no header")) }
                guard fingerprint == nil || entry.plan == fingerprint else {
                    return .failure(ReplayFailure("the pipeline or the table's fields changed since it was written"))
                }
                continue
            }
            guard let id = entry.part else { return .failure(ReplayFailure("line \(number + 1) names no part")) }
            switch entry.kind {
            case "part":
                parts[id] = Part(id: id, range: SysIDRange(lowerBound: entry.lower, upperBound: entry.upper))
            case "state", "page":
                var part = parts[id] ?? Part(id: id, range: SysIDRange())
                if entry.kind == "state" {
                    part.range = SysIDRange(lowerBound: entry.lower, upperBound: entry.upper)
                    part.done = entry.done ?? false
                    part.hidden = entry.hidden ?? 0
                } else if parts[id] == nil {
                    return .failure(ReplayFailure("line \(number + 1) records a page of an undeclared part"))
                }
                part.cursor = entry.cursor
                part.length = entry.bytes ?? 0
                part.digest = entry.sha256 ?? part.digest
                part.pages = entry.pages ?? 0
                part.rows = entry.rows ?? 0
                part.rejects = entry.rejects ?? 0
                part.requests = entry.requests ?? 0
                if let value = entry.high, let sysID = entry.highSysID {
                    part.high = CursorMark(value: value, sysID: sysID)
                } else {
                    part.high = nil
                }
                parts[id] = part
            case "split":
                guard var part = parts[id] else {
                    return .failure(ReplayFailure("line \(number + 1) splits an undeclared part"))
                }
                part.range.upperBound = entry.upper
                parts[id] = part
            case "done":
                guard var part = parts[id] else {
                    return .failure(ReplayFailure("line \(number + 1) ends an undeclared part"))
                }
                part.done = true
                part.requests = entry.requests ?? part.requests
                part.hidden = entry.hidden ?? 0
                parts[id] = part
            default:
                return .failure(ReplayFailure("line \(number + 1) has an unknown kind \(entry.kind)"))
            }
        }
        let ordered = Self.ordered(Array(parts.values))
        for (left, right) in zip(ordered, ordered.dropFirst()) {
            guard let upper = left.range.upperBound, let lower = right.range.lowerBound, upper <= lower else {
                return .failure(ReplayFailure("parts \(left.id) and \(right.id) overlap"))
            }
        }
        return .success(ordered)
    }

    private struct ReplayFailure: Error {
        var reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// `parts` (ordered, not overlapping) plus a fresh part for every gap of `space` (the whole key
    /// space by default) between them.
    static func fillingGaps(_ parts: [Part], within space: SysIDRange = SysIDRange()) -> [Part] {
        var result: [Part] = []
        var nextID = (parts.map(\.id).max() ?? -1) + 1
        var expected = space.lowerBound  // nil: the start of the key space
        for part in parts {
            let lower = part.range.lowerBound
            if lower != expected {
                result.append(Part(id: nextID, range: SysIDRange(lowerBound: expected, upperBound: lower)))
                nextID += 1
            }
            result.append(part)
            expected = part.range.upperBound
            if expected == nil || expected == space.upperBound { return result }
        }
        result.append(Part(id: nextID, range: SysIDRange(lowerBound: expected, upperBound: space.upperBound)))
        return result
    }

    /// Parts in sys_id order (the open lower bound first).
    static func ordered(_ parts: [Part]) -> [Part] {
        parts.sorted { left, right in
            switch (left.range.lowerBound, right.range.lowerBound) {
            case (nil, nil): return left.id < right.id
            case (nil, _): return true
            case (_, nil): return false
            case (let a?, let b?): return a < b
            }
        }
    }
}

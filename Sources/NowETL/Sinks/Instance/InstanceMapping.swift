import Foundation
import NowData
import Synchronization

/// The map of one coalesced table: which target record each source record became.
///
/// It is decided once, before anything of the table is written (``InstanceKeyMatch``), and kept
/// in three places:
/// - in the table's run journal directory (`instance-<host>.map.jsonl`, first line
///   `nowetl-instance-map 1 <load id>`), synced before the first write, so that the rerun of a killed
///   run reuses it and never matches differently;
/// - in `<output_dir>/mapping/<table>.jsonl`, staged by the table's prepare and renamed into place by
///   the run's commit: the maps of the last committed migration, which the next run (a delta sync, a
///   run of other tables) and `reconcile` read — every entry of the previous file is carried over, so
///   a record keeps its target across runs;
/// - in the run's ``InstanceMaps``, for the tables written after it in the same run.
///
/// One JSON object a line, sorted by source sys_id:
/// `{"action":"updated","key":"user_name='fred.luddy'","source":"<sys_id>","target":"<sys_id>"}`.
/// `action` is `updated` or `kept` (matched on the key; ``InstanceMatching/OnMatch``), `inserted`
/// (no match, written with the source sys_id), `skipped` (no match, not written: `target` is
/// empty, and references to the record are unresolved) or `deleted` (the source deleted it, and the
/// run deleted its target record: `deletes: propagate`).
public struct InstanceTableMap: Sendable, Hashable {
    /// One source record's fate.
    public struct Entry: Sendable, Hashable, Codable {
        /// The source record's sys_id.
        public var source: String
        /// The target record's sys_id; empty for ``Action/skipped``.
        public var target: String
        /// The key the record was matched on, as a message shows it (`user_name='fred.luddy'`); empty
        /// when the record has no key.
        public var key: String
        /// What the run does with the record.
        public var action: Action
    }

    /// What a run does with a source record of a coalesced table.
    public enum Action: String, Sendable, Hashable, Codable {
        /// Matched on its key; the target record receives the source's values.
        case updated
        /// Matched on its key; the target record is left as it is.
        case kept
        /// No match; inserted with the source sys_id.
        case inserted
        /// No match; not written.
        case skipped
        /// Written by an earlier run, and deleted on the target after the source deleted it
        /// (`deletes: propagate`).
        case deleted
    }

    /// Entries by source sys_id.
    public private(set) var entries: [String: Entry] = [:]

    /// An empty map.
    public init() {}

    /// Adds (or replaces) the entry of `entry.source`.
    public mutating func add(_ entry: Entry) { entries[entry.source] = entry }

    /// The target sys_id of the source record `source`: `.some(nil)` for a skipped or deleted record,
    /// `nil` when the map does not know the record.
    public func target(of source: String) -> String?? {
        guard let entry = entries[source] else { return nil }
        return .some(entry.action == .skipped || entry.action == .deleted ? nil : entry.target)
    }

    /// The map's lines, sorted by source sys_id.
    func jsonLines() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = Data()
        for source in entries.keys.sorted() {
            guard let entry = entries[source] else { continue }
            data.append(try encoder.encode(entry))
            data.append(UInt8(ascii: "\n"))
        }
        return data
    }

    /// The map in `lines` (``jsonLines()``); a line that does not decode, or whose sys_ids break the
    /// rule, is an error naming `path` and the line.
    static func read(_ data: Data, path: String, skippingHeader header: String? = nil) throws(NowETLError)
        -> InstanceTableMap
    {
        var map = InstanceTableMap()
        let decoder = JSONDecoder()
        var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        for (number, line) in lines.enumerated() {
            if number == 0, let header {
                guard Data(line) == Data(header.utf8) else { return InstanceTableMap() }
                continue
            }
            guard let entry = try? decoder.decode(Entry.self, from: Data(line)), SysIDRule.accepts(entry.source),
                entry.target.isEmpty ? entry.action == .skipped : SysIDRule.accepts(entry.target)
            else {
                throw NowETLError(
                    .mapping, path: path,
                    "\(path):\(number + 1): not a mapping entry of nowetl (source, target sys_ids, key, action); "
                        + "move the file away to match the table anew")
            }
            map.add(entry)
        }
        return map
    }
}

/// Where a target's maps live on disk.
enum InstanceMapFiles {
    /// `<output_dir>/mapping/<table>.jsonl`: the maps of the last committed migration.
    static func committedPath(outputDirectory: String, table: String) -> String {
        RunCommit.absolute(outputDirectory) + "/mapping/" + safeName(table) + ".jsonl"
    }

    /// The map of `table` the last committed run left, empty when there is none.
    ///
    /// - Throws: ``NowETLError`` when the file exists but cannot be read or holds something else.
    static func committed(outputDirectory: String, table: String) throws(NowETLError) -> InstanceTableMap {
        let path = committedPath(outputDirectory: outputDirectory, table: table)
        guard FileManager.default.fileExists(atPath: path) else { return InstanceTableMap() }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw NowETLError(.io, path: path, "cannot read the mapping \(path)")
        }
        return try InstanceTableMap.read(data, path: path)
    }

    /// The journal's copy of the map of the load `loadID`, empty when it holds another load's or none.
    static func journaled(directory: String, name: String, loadID: String) throws(NowETLError) -> InstanceTableMap {
        let path = directory + "/" + name
        guard let data = FileManager.default.contents(atPath: path) else { return InstanceTableMap() }
        return try InstanceTableMap.read(data, path: path, skippingHeader: journalHeader + loadID)
    }

    /// Writes `map` for the load `loadID` into the journal directory, synced, before any write.
    static func journal(_ map: InstanceTableMap, directory: String, name: String, loadID: String) throws {
        try OwnFiles.makeDirectories(directory)
        var data = Data((journalHeader + loadID + "\n").utf8)
        data.append(try map.jsonLines())
        let path = directory + "/" + name
        try AtomicFile.holding(data, targetPath: path, displayPath: path, mode: OwnFiles.privateFileMode)
            .commitOrAbort()
    }

    /// The committed map file of `table` as a staged file for the run's commit.
    static func stage(_ map: InstanceTableMap, outputDirectory: String, table: String) throws -> StagedFile {
        let path = committedPath(outputDirectory: outputDirectory, table: table)
        try OwnFiles.makeDirectories((path as NSString).deletingLastPathComponent)
        return try AtomicFile.holding(
            try map.jsonLines(), targetPath: path, displayPath: "mapping/" + safeName(table) + ".jsonl",
            mode: OwnFiles.privateFileMode
        ).stage()
    }

    private static let journalHeader = "nowetl-instance-map 1 "

    private static func safeName(_ table: String) -> String {
        String(table.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" ? $0 : "_" })
    }
}

/// The maps of the coalesced tables a run has written so far, per target: what a later table's
/// references are rewritten with. The engine owns one per run (``TableRunner``) and hands it to
/// every instance sink it makes.
///
/// Safety: a `Mutex` guards the dictionary; the tables of a run are written one after another, so it
/// is never contended, but sinks are `Sendable` values made inside tasks.
public final class InstanceMaps: Sendable {
    private let maps = Mutex<[String: InstanceTableMap]>([:])

    /// An empty registry.
    public init() {}

    /// The map of `table` on `target`, if a table of this run made it.
    func map(target: String, table: String) -> InstanceTableMap? {
        maps.withLock { $0[target + "\u{0}" + table] }
    }

    /// Keeps `map` as the map of `table` on `target`.
    func keep(_ map: InstanceTableMap, target: String, table: String) {
        maps.withLock { $0[target + "\u{0}" + table] = map }
    }
}

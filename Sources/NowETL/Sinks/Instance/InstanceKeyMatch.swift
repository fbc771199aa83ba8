/// Decides the map of a coalesced table (``InstanceTableMap``) from its source records' keys and the
/// target's, before anything of the table is written.
///
/// The rules, in order, for each source record (sys_id order):
/// 1. A record the previous map knows (the journal's, on a resumed run; the last committed
///    `mapping/<table>.jsonl` otherwise) keeps its target — a record is never matched differently
///    once it has one (a `skipped` or `deleted` one is matched again: the target may have gained it,
///    the source may have made it anew).
/// 2. Its key (``InstanceMatching/key(_:)``) is looked up among the target's records. Two target
///    records with the key: refused, naming the key and both sys_ids. One: matched
///    (`updated`, or `kept` under `on_match: keep`) — unless another source record matched it
///    already, which is refused naming both. None, or no key: `on_missing` decides (`inserted` with
///    the source sys_id, `skipped`, or refused with the list of such records).
///
/// Refusals are ``NowETLError/Code/mapping`` (exit 1) and come before any write.
struct InstanceKeyMatch {
    /// A source record: its sys_id and its key fields' values (references already mapped).
    struct Source {
        var sysID: String
        var values: [String]
    }

    let table: String
    let fields: [String]
    let matching: InstanceMatching
    /// The target's base URL, for messages.
    let target: String

    /// The map of `sources` onto `targetRecords` (every record of the table on the target with its key
    /// values), starting from `previous`.
    ///
    /// - Throws: ``NowETLError`` (`mapping`) as the rules above say.
    func decide(sources: [Source], targetRecords: [(sysID: String, values: [String])], previous: InstanceTableMap)
        throws(NowETLError) -> InstanceTableMap
    {
        var index: [String: [String]] = [:]
        for record in targetRecords {
            guard let key = InstanceMatching.key(record.values) else { continue }
            index[key, default: []].append(record.sysID)
        }
        var map = InstanceTableMap()
        // The source record that holds each target record, for the second-claim refusal.
        var holders: [String: String] = [:]
        for entry in previous.entries.values
        where entry.action != .skipped && entry.action != .deleted && entry.target != entry.source {
            holders[entry.target] = entry.source
        }
        var unmatched: [Source] = []
        for source in sources {
            let described = InstanceMatching.describe(fields: fields, values: source.values)
            if var known = previous.entries[source.sysID], known.action != .skipped, known.action != .deleted {
                if known.action != .inserted { known.action = matching.onMatch == .keep ? .kept : .updated }
                map.add(known)
                continue
            }
            let candidates = InstanceMatching.key(source.values).flatMap { index[$0] } ?? []
            if candidates.count > 1 {
                throw NowETLError(
                    .mapping, path: target,
                    "table \(table): the key \(described) of source record \(source.sysID) matches "
                        + "\(candidates.count) records of the target \(target): \(candidates.prefix(5).joined(separator: ", "))"
                        + "; make the key unique on the target or choose other key fields (coalesce: \(table): "
                        + "[\(fields.joined(separator: ", "))]); nothing of \(table) was written")
            }
            guard let match = candidates.first else {
                unmatched.append(source)
                switch matching.onMissing {
                case .insert:
                    map.add(.init(source: source.sysID, target: source.sysID, key: described, action: .inserted))
                case .skip: map.add(.init(source: source.sysID, target: "", key: described, action: .skipped))
                case .fail: break
                }
                continue
            }
            if let holder = holders[match], holder != source.sysID {
                throw NowETLError(
                    .mapping, path: target,
                    "table \(table): source records \(holder) and \(source.sysID) both match target record \(match) "
                        + "(key \(described)); make the key unique in the source or choose other key fields; "
                        + "nothing of \(table) was written")
            }
            holders[match] = source.sysID
            map.add(
                .init(
                    source: source.sysID, target: match, key: described,
                    action: matching.onMatch == .keep ? .kept : .updated))
        }
        if matching.onMissing == .fail, let first = unmatched.first {
            let sample = unmatched.prefix(5).map {
                "\($0.sysID) (\(InstanceMatching.describe(fields: fields, values: $0.values)))"
            }
            throw NowETLError(
                .mapping, path: target,
                "table \(table): \(unmatched.count) source record\(unmatched.count == 1 ? "" : "s") match no record "
                    + "of the target \(target) and on_missing is fail: \(sample.joined(separator: ", "))"
                    + (unmatched.count > 5 ? ", …" : "") + "; nothing of \(table) was written"
                    + (first.values.allSatisfy(\.isEmpty) ? " (a record with empty key fields has no key)" : ""))
        }
        return map
    }
}

import Foundation
import NowData

extension TableReconciliation {
    /// sys_ids per `sys_idIN…` lookup of target records: the bound an instance output's own lookups
    /// keep (a URL stays short).
    static let lookupBatch = 100

    /// Compares a coalesced table through the migration's map, where a source record and its target
    /// record need not share a sys_id, so the merge join by sys_id cannot pair them.
    ///
    /// 1. The source is walked in sys_id order, one keyset page at a time. Each record's target is the
    ///    one its map entry names (`updated`, `kept`: the matched record; `inserted`: its own sys_id),
    ///    or its own sys_id when the map does not know it (a record made after the migration). A record
    ///    the map `skipped` is *unmatched*: listed with its key, not missing, not a difference.
    /// 2. The page's targets are read with `sys_idIN…` lookups (``lookupBatch`` at a time, the table's
    ///    filter left out: the map names the record) and compared as in the merge join, the source
    ///    record in its mapped form; a matched record's sys_id, `sys_created_on`, `sys_created_by` and
    ///    `sys_mod_count` are the target's by design (``ReconcileTranslation/targetsOwnFields``). A
    ///    `kept` record (`on_match: keep`) is only checked to exist. A target that lacks the record
    ///    makes it missing.
    /// 3. The target is walked over the sys_id and the key fields (the table's filter applied): a
    ///    record no source record was paired with is *the target's own* (a target in use has them),
    ///    listed, not extra, not a difference; a key (``InstanceMatching/key(_:)``) that two target
    ///    records hold, one of them paired, is *ambiguous*: a difference.
    ///
    /// Memory: a source page and its target records; the sys_ids of the paired target records, 16
    /// bytes each (``RowIDSet``); the map and the target's keys — both as much as the migration itself
    /// held for the table (it reads every target key before writing).
    func runCoalesced(
        source: Side, target: Side, decoder: any PageDecoding, translation: ReconcileTranslation, keys: [String]
    ) async throws -> TableReconciliationResult {
        let started = ContinuousClock.now
        let map = translation.maps.maps[table] ?? InstanceTableMap()
        let digest = RowDigest(fields: fields)
        var result = TableReconciliationResult(table: table, fields: fields)
        result.mapping = .init(coalesced: true)
        var paired = RowIDSet()
        var lookups = ReconcileWalk.State()

        let sourceWalk = walk(source, decoder: decoder)
        var sourceState = ReconcileWalk.State()
        while !sourceState.ended {
            guard let page = try await Self.next(sourceWalk, sourceState, if: true, role: source.role) else { break }
            sourceState = page.state
            result.sourceRows += page.records.count
            var pairs: [(record: Record, sysID: String, target: String, action: InstanceTableMap.Action?)] = []
            for record in page.records {
                let sysID = record.sysID ?? ""
                // A record whose target the migration deleted (`deletes: propagate`) and that the source
                // has again is not mapped until the next migration matches it anew.
                let entry = map.entries[sysID].flatMap { $0.action == .deleted ? nil : $0 }
                if let entry, entry.action == .skipped {
                    result.mapping?.unmatched += 1
                    if (result.mapping?.unmatchedRecords.count ?? 0) < limits.listedSysIDs {
                        result.mapping?.unmatchedRecords.append(.init(sysID: sysID, key: entry.key))
                    }
                    continue
                }
                pairs.append((record, sysID, entry?.target ?? sysID, entry?.action))
            }
            let found = try await lookUp(pairs.map(\.target), on: target, decoder: decoder, counting: &lookups)
            for pair in pairs {
                guard let targetRecord = found[pair.target] else {
                    result.missing += 1
                    if result.missingSysIDs.count < limits.listedSysIDs { result.missingSysIDs.append(pair.sysID) }
                    continue
                }
                paired.insert(pair.target)
                if pair.action == .kept {
                    result.mapping?.kept += 1
                    continue
                }
                compare(
                    pair.record, targetRecord, sysID: pair.sysID, digest: digest, matched: pair.action == .updated,
                    into: &result)
            }
        }
        paired.finish()

        let targetWalk = walk(target, decoder: decoder, fields: ["sys_id"] + keys)
        var targetState = ReconcileWalk.State()
        // The first target record of each key, and the keys more records hold.
        var holders: [String: String] = [:]
        var twins: [String: [String]] = [:]
        while !targetState.ended {
            guard let page = try await Self.next(targetWalk, targetState, if: true, role: target.role) else { break }
            targetState = page.state
            result.targetRows += page.records.count
            for record in page.records {
                let sysID = record.sysID ?? ""
                if !paired.contains(sysID) {
                    result.mapping?.targetOwn += 1
                    if (result.mapping?.targetOwnSysIDs.count ?? 0) < limits.listedSysIDs {
                        result.mapping?.targetOwnSysIDs.append(sysID)
                    }
                }
                guard let key = InstanceMatching.key(keys.map { RowDigest.value(of: $0, in: record) ?? "" }) else {
                    continue
                }
                if let first = holders[key] {
                    twins[key, default: [first]].append(sysID)
                } else {
                    holders[key] = sysID
                }
            }
        }
        holders = [:]
        for (key, sysIDs) in twins.sorted(by: { $0.key < $1.key }) where sysIDs.contains(where: paired.contains) {
            result.mapping?.ambiguous += 1
            guard (result.mapping?.ambiguousKeys.count ?? 0) < limits.listedSysIDs else { continue }
            let values = key.split(separator: "\u{0}", omittingEmptySubsequences: false).map(String.init)
            result.mapping?.ambiguousKeys.append(
                .init(key: InstanceMatching.describe(fields: keys, values: values), sysIDs: sysIDs.sorted()))
        }

        (sourceState, targetState) = try await countHidden(
            &result, source: (sourceWalk, sourceState, source.role), target: (targetWalk, targetState, target.role))
        result.pages = sourceState.pages + targetState.pages + lookups.pages
        result.requests = sourceState.requests + targetState.requests + lookups.requests
        result.seconds = Self.seconds(ContinuousClock.now - started)
        return result
    }

    /// The target's records of `sysIDs` by sys_id, over the compared fields: `sys_idIN…` lookups of at
    /// most ``lookupBatch`` sys_ids, each walked in keyset pages until every record asked for came or
    /// the walk ended (a record hidden by ACLs, or absent, does not come). A sys_id that breaks
    /// ``SysIDRule`` is never put into a query: its record is not found. Pages and requests are added
    /// to `state`.
    func lookUp(
        _ sysIDs: [String], on side: Side, decoder: any PageDecoding, counting state: inout ReconcileWalk.State
    ) async throws -> [String: Record] {
        let wanted = Set(sysIDs.filter { SysIDRule.problem($0) == nil }).sorted()
        var found: [String: Record] = [:]
        for start in stride(from: 0, to: wanted.count, by: Self.lookupBatch) {
            let chunk = Array(wanted[start..<min(start + Self.lookupBatch, wanted.count)])
            let filter = EncodedQuery().and([
                .init(conditions: [.init(field: "sys_id", op: .isIn, value: .list(chunk))])
            ])
            let walk = walk(side, decoder: decoder, filter: filter)
            var walkState = ReconcileWalk.State()
            var received = 0
            while received < chunk.count, !walkState.ended,
                let page = try await Self.next(walk, walkState, if: true, role: side.role)
            {
                walkState = page.state
                for record in page.records {
                    guard let sysID = record.sysID else { continue }
                    found[sysID] = record
                    received += 1
                }
            }
            state.pages += walkState.pages
            state.requests += walkState.requests
        }
        return found
    }
}

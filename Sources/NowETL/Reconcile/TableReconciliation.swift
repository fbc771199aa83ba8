import Foundation
import NowData

/// Proves one table of a target instance equal to the source's — or shows where it is not: a merge
/// join of both sides' records by sys_id, each side read in keyset pages in sys_id order, the pages
/// of both fetched in lockstep (at once when both need one). Memory is bounded by a page per side and
/// the capped lists of the result, whatever the table's size.
///
/// Per row on both sides the digests of the compared fields (``RowDigest``: SHA-256 over a canonical
/// encoding of the stored values) decide; for the first differing rows (``Limits/sampledRows``) the
/// differing fields are listed with both values, cut to ``Limits/valueLength`` characters. After the
/// walk each side's instance counts the table's filter (Aggregate API, before ACLs): records it counts
/// but the reader did not see are reported as hidden, and a result with hidden rows is not equal.
///
/// The compared fields (``comparedFields(of:)``) are the ones a migration writes: every field of the
/// table and its ancestors in the source's dictionary, as stored values, system fields included —
/// `sys_created_on`, `sys_updated_on`, `sys_mod_count` and the rest, which an `instance` output keeps
/// (`sysparm_suppress_auto_sys_field=true`). No field is excluded: with the system fields suppressed
/// the target regenerates none, and a field left out could hide a difference. The values of password
/// fields (`password`, `password2`) are compared by digest but never shown.
///
/// With the maps of a migration that coalesced tables (``ReconcileMaps``), references compare in their
/// mapped form and a coalesced table is compared through its map instead of the merge join
/// (``runCoalesced(source:target:decoder:translation:keys:)``).
public struct TableReconciliation: Sendable {
    /// How much of the differences the result lists; the totals are always exact.
    public struct Limits: Sendable, Hashable {
        /// sys_ids listed of the missing and of the extra rows, each.
        public var listedSysIDs: Int
        /// Differing rows whose fields are shown.
        public var sampledRows: Int
        /// Characters of a shown value.
        public var valueLength: Int

        /// The defaults: 100 sys_ids, 20 rows, 200 characters.
        public init(listedSysIDs: Int = 100, sampledRows: Int = 20, valueLength: Int = 200) {
            self.listedSysIDs = max(0, listedSysIDs)
            self.sampledRows = max(0, sampledRows)
            self.valueLength = max(1, valueLength)
        }
    }

    /// One instance of the comparison: where its pages come from and how large they are. Reuse one
    /// side for every table of the instance: its request limiter is the instance's.
    public struct Side: Sendable {
        /// The pages.
        public var pages: any PageSource
        /// Records per page.
        public var pageSize: Int
        /// `source` or `target`, for messages.
        public var role: String
        let limiter: RequestLimiter

        /// A side reading through `service`, one request at a time.
        public init(role: String, service: NowTableService, pageSize: Int) {
            self.init(role: role, pages: InstancePageSource(service: service), pageSize: pageSize)
        }

        /// A side reading from `pages`, one request at a time.
        public init(role: String, pages: any PageSource, pageSize: Int) {
            self.pages = pages
            self.pageSize = max(1, pageSize)
            self.role = role
            limiter = RequestLimiter(maximum: 1)
        }
    }

    /// The table.
    public var table: String
    /// The compared fields, sorted by name, sys_id included.
    public var fields: [String]
    /// The table's filter (the rows a migration copies); empty for the whole table.
    public var filter: EncodedQuery
    /// Fields whose values are compared but never shown.
    public var withheldFields: Set<String>
    /// Values never shown: a shown value containing one is withheld (the pipeline's credentials).
    public var secrets: [String]
    /// How much the result lists.
    public var limits: Limits
    /// How the migration's maps translate the table's source records (``ReconcileMaps``); `nil` for a
    /// pipeline that coalesces nothing: records match by sys_id and compare as stored.
    var translation: ReconcileTranslation?

    /// A reconciliation of `table` over `fields` (sorted and deduplicated here, sys_id added).
    public init(
        table: String, fields: [String], filter: EncodedQuery = EncodedQuery(), withheldFields: Set<String> = [],
        secrets: [String] = [], limits: Limits = Limits()
    ) {
        self.table = table
        self.fields = Set(fields + ["sys_id"]).sorted()
        self.filter = filter
        self.withheldFields = withheldFields
        self.secrets = secrets.filter { !$0.isEmpty }
        self.limits = limits
    }

    /// A reconciliation of `table` over the fields a migration writes (``comparedFields(of:)``), with
    /// its password fields withheld; with `maps`, through the sys_id maps of the migration (a
    /// coalesced table record by record through its map, references in their mapped form).
    public init(
        table: String, dictionary: [DictionaryField], filter: EncodedQuery = EncodedQuery(), secrets: [String] = [],
        limits: Limits = Limits(), maps: ReconcileMaps? = nil
    ) {
        self.init(
            table: table, fields: Self.comparedFields(of: dictionary), filter: filter,
            withheldFields: Set(dictionary.filter { $0.internalType.hasPrefix("password") }.map(\.name)),
            secrets: secrets, limits: limits)
        translation = maps.map { ReconcileTranslation(maps: $0, dictionary: dictionary) }
    }

    /// The fields a reconciliation compares: every field of `dictionary` (the table's own and
    /// inherited fields), sys_id included, sorted by name.
    public static func comparedFields(of dictionary: [DictionaryField]) -> [String] {
        Set(dictionary.map(\.name).filter { !$0.isEmpty } + ["sys_id"]).sorted()
    }

    /// Compares the table on `source` and `target`.
    ///
    /// - Throws: ``NowETLError`` naming the side (exit code by its code: 77 for a 403, 69, 75…), or
    ///   `CancellationError`.
    public func run(source: Side, target: Side, decoder: any PageDecoding = FastPageDecoder()) async throws
        -> TableReconciliationResult
    {
        if let translation, let keys = translation.maps.keys(of: table) {
            return try await runCoalesced(
                source: source, target: target, decoder: decoder, translation: translation, keys: keys)
        }
        let started = ContinuousClock.now
        let sourceWalk = walk(source, decoder: decoder)
        let targetWalk = walk(target, decoder: decoder)
        let digest = RowDigest(fields: fields)
        var result = TableReconciliationResult(table: table, fields: fields)
        if translation != nil { result.mapping = .init(coalesced: false) }
        var sourceState = ReconcileWalk.State()
        var targetState = ReconcileWalk.State()
        var sourceRecords: [Record] = []
        var targetRecords: [Record] = []
        var sourceIndex = 0
        var targetIndex = 0
        while true {
            let sourceNeeds = sourceIndex == sourceRecords.count && !sourceState.ended
            let targetNeeds = targetIndex == targetRecords.count && !targetState.ended
            if sourceNeeds || targetNeeds {
                let (sourceAt, targetAt) = (sourceState, targetState)
                async let sourceNext = Self.next(sourceWalk, sourceAt, if: sourceNeeds, role: source.role)
                async let targetNext = Self.next(targetWalk, targetAt, if: targetNeeds, role: target.role)
                let (sourcePage, targetPage) = try await (sourceNext, targetNext)
                if let sourcePage {
                    (sourceRecords, sourceState, sourceIndex) = (sourcePage.records, sourcePage.state, 0)
                    result.sourceRows += sourceRecords.count
                }
                if let targetPage {
                    (targetRecords, targetState, targetIndex) = (targetPage.records, targetPage.state, 0)
                    result.targetRows += targetRecords.count
                }
                continue
            }
            let sourceRecord = sourceIndex < sourceRecords.count ? sourceRecords[sourceIndex] : nil
            let targetRecord = targetIndex < targetRecords.count ? targetRecords[targetIndex] : nil
            switch (sourceRecord?.sysID, targetRecord?.sysID) {
            case (nil, nil):
                (sourceState, targetState) = try await countHidden(
                    &result, source: (sourceWalk, sourceState, source.role),
                    target: (targetWalk, targetState, target.role))
                result.pages = sourceState.pages + targetState.pages
                result.requests = sourceState.requests + targetState.requests
                result.seconds = Self.seconds(ContinuousClock.now - started)
                return result
            case (let sourceID?, let targetID?) where sourceID == targetID:
                if let sourceRecord, let targetRecord {
                    compare(sourceRecord, targetRecord, sysID: sourceID, digest: digest, into: &result)
                }
                sourceIndex += 1
                targetIndex += 1
            case (let sourceID?, let targetID) where targetID.map({ sourceID < $0 }) ?? true:
                result.missing += 1
                if result.missingSysIDs.count < limits.listedSysIDs { result.missingSysIDs.append(sourceID) }
                sourceIndex += 1
            case (_, let targetID?):
                result.extra += 1
                if result.extraSysIDs.count < limits.listedSysIDs { result.extraSysIDs.append(targetID) }
                targetIndex += 1
            case (.some, nil):
                // Unreachable: the case before takes every source row when the target has ended.
                sourceIndex += 1
            }
        }
    }

    /// A walk of the table on `side` over `fields` (the compared ones by default) and `filter` (the
    /// table's by default).
    func walk(_ side: Side, decoder: any PageDecoding, fields: [String]? = nil, filter: EncodedQuery? = nil)
        -> ReconcileWalk
    {
        let plan = TablePlan(
            table: table, filter: filter ?? self.filter, displayValue: .actual,
            readConfiguration: FieldReadConfiguration(
                includeFields: fields ?? self.fields, options: [.actualValues, .excludeReferenceLink]),
            columns: [], partitions: [SysIDRange()], pageSize: side.pageSize)
        return ReconcileWalk(plan: plan, source: side.pages, limiter: side.limiter, decoder: decoder)
    }

    /// The walk's next page when `needed`, its error naming the side.
    static func next(_ walk: ReconcileWalk, _ state: ReconcileWalk.State, if needed: Bool, role: String)
        async throws -> (records: [Record], state: ReconcileWalk.State)?
    {
        guard needed else { return nil }
        do {
            return try await walk.next(state)
        } catch let error as NowETLError where error.context.table != nil {
            throw error.labelled(role)
        }
    }

    /// Counts both sides' filters and records what the reader did not see; returns the states after.
    func countHidden(
        _ result: inout TableReconciliationResult,
        source: (walk: ReconcileWalk, state: ReconcileWalk.State, role: String),
        target: (walk: ReconcileWalk, state: ReconcileWalk.State, role: String)
    ) async throws -> (ReconcileWalk.State, ReconcileWalk.State) {
        async let sourceCount = Self.count(source.walk, source.state, role: source.role)
        async let targetCount = Self.count(target.walk, target.state, role: target.role)
        let (sourceCounted, targetCounted) = try await (sourceCount, targetCount)
        result.sourceHidden = max(0, sourceCounted.count - result.sourceRows)
        result.targetHidden = max(0, targetCounted.count - result.targetRows)
        return (sourceCounted.state, targetCounted.state)
    }

    static func count(_ walk: ReconcileWalk, _ state: ReconcileWalk.State, role: String) async throws
        -> (count: Int, state: ReconcileWalk.State)
    {
        var state = state
        do {
            let count = try await walk.count(&state)
            return (count, state)
        } catch let error as NowETLError where error.context.table != nil {
            throw error.labelled(role)
        }
    }

    /// Compares one row present on both sides: with maps, the source record in the form the target
    /// should hold it (``ReconcileTranslation/expected(_:matchedTarget:)``; `matched` for a record a
    /// coalesced table's map matched to a target record), a difference that is only references the
    /// migration cleared counting as equal.
    func compare(
        _ source: Record, _ target: Record, sysID: String, digest: RowDigest, matched: Bool = false,
        into result: inout TableReconciliationResult
    ) {
        let original = source
        var source = source
        if let translation {
            let expected = translation.expected(source, matchedTarget: matched ? target : nil)
            source = expected.record
            result.mapping?.remapped += expected.remapped
        }
        let sourceDigest = digest.digest(of: source)
        let targetDigest = digest.digest(of: target)
        guard sourceDigest != targetDigest else {
            result.matching += 1
            return
        }
        var differing = digest.differingFields(source, target)
        if let translation {
            var cleared: [String: Int] = [:]
            differing.removeAll { field in
                guard let count = translation.cleared(field, source: original, target: target) else { return false }
                cleared[field] = count
                return true
            }
            result.mapping?.cleared.merge(cleared, uniquingKeysWith: +)
            if differing.isEmpty {
                result.matching += 1
                return
            }
        }
        result.differing += 1
        guard result.differingRows.count < limits.sampledRows else { return }
        let differences = differing.map { field in
            shown(field, RowDigest.value(of: field, in: source), RowDigest.value(of: field, in: target))
        }
        let targetSysID = RowDigest.value(of: "sys_id", in: target)
        result.differingRows.append(
            TableReconciliationResult.DifferingRow(
                sysID: sysID, targetSysID: targetSysID == sysID ? nil : targetSysID,
                sourceDigest: sourceDigest.hexString, targetDigest: targetDigest.hexString, fields: differences))
    }

    /// Both values of a differing field as the report shows them: cut to the limit (in Unicode scalars,
    /// which keep canonically equivalent spellings apart), starting a little before the first differing
    /// scalar when that lies beyond the limit; withheld for credentials.
    func shown(_ field: String, _ source: String?, _ target: String?) -> TableReconciliationResult.FieldDifference {
        if withheldFields.contains(field)
            || [source, target].contains(where: { value in secrets.contains { value?.contains($0) ?? false } })
        {
            return TableReconciliationResult.FieldDifference(field: field, source: nil, target: nil, withheld: true)
        }
        let limit = limits.valueLength
        var skip = 0
        if let source, let target {
            let common = zip(source.unicodeScalars, target.unicodeScalars).prefix { $0 == $1 }.count
            if common >= limit { skip = common - limit / 4 }
        }
        var truncated = skip > 0
        func cut(_ value: String?) -> String? {
            guard let value else { return nil }
            let rest = value.unicodeScalars.dropFirst(skip)
            let kept = rest.prefix(limit)
            if kept.endIndex != rest.endIndex { truncated = true }
            return (skip > 0 ? "…" : "") + String(String.UnicodeScalarView(kept))
        }
        let (shownSource, shownTarget) = (cut(source), cut(target))
        return TableReconciliationResult.FieldDifference(
            field: field, source: shownSource, target: shownTarget, truncated: truncated)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

import Foundation
import NowData

/// The rows one run of an incremental table reads: those after the saved `(cursor, sys_id)` and at
/// most the run's signpost — as conditions AND-ed to the table's filter, so that counts, keyset pages
/// and the hidden-row walk all see the same rows (``IncrementalConfiguration`` has the rules).
///
/// * With a saved `cursor` and `sysID`: `F>=C^F>C^ORsys_id>L` — the boundary second `C` is read
///   again, and only its rows after sys_id `L` are taken. Within one second the rows come in sys_id
///   order like all rows, so however many share it, none is lost or doubled.
/// * With a saved `cursor` alone (after `nowetl state set`, or a table's `start:`): `F>=C`.
/// * With nothing saved (the first run, `--full-refresh`): no lower bound; rows whose cursor is
///   empty are read too (`F<=S^ORFISEMPTY`), since the first run reads everything the filter matches.
/// * Always `F<=S`: the signpost ``signpost(runStarted:lagSeconds:)``, the last whole second before
///   the run started minus the lag. A row updated while the run goes on gets a later cursor and is
///   left for the next run instead of being half-read.
///
/// The window is part of the table's plan (and so of the run journal's fingerprint): a rerun of an
/// interrupted run keeps the signpost the journal recorded, so it resumes instead of starting over.
public struct IncrementalWindow: Sendable, Hashable, Codable {
    /// The cursor field (a date-time field of the table).
    public var field: String
    /// The lower bound's second, `YYYY-MM-DD HH:MM:SS` UTC (inclusive); `nil` for no lower bound.
    public var cursor: String?
    /// Within the second ``cursor``: only rows after this sys_id.
    public var sysID: String?
    /// The upper bound, inclusive.
    public var signpost: String
    /// The signpost of the run whose state this window continues (`nil` on a first run, after `--full-refresh`
    /// or `nowetl state set`): rows that belong to records without moving their cursor — attachments,
    /// journal entries, audit rows — are new to this run when they were created after it
    /// (``relatedCondition(on:)``). Not part of ``terms``.
    public var previousSignpost: String?

    /// Creates a window.
    public init(
        field: String, cursor: String? = nil, sysID: String? = nil, signpost: String, previousSignpost: String? = nil
    ) {
        self.field = field
        self.cursor = cursor
        self.sysID = sysID
        self.signpost = signpost
        self.previousSignpost = previousSignpost
    }

    /// The condition on a related row's date-time `field` (`sys_created_on` of a journal entry,
    /// `sys_updated_on` of an attachment) that makes it new to this run: after ``previousSignpost``
    /// (else from ``cursor``, else from the start), up to ``signpost``.
    public func relatedCondition(on field: String) -> String {
        let lower = previousSignpost.map { "\(field)>\($0)^" } ?? cursor.map { "\(field)>=\($0)^" } ?? ""
        return lower + "\(field)<=\(signpost)"
    }

    /// The signpost of a run that started at `runStarted`: the last whole second before it, minus
    /// `lagSeconds` — a second that has fully passed on the run's clock, so no row can still get it.
    public static func signpost(runStarted: Date, lagSeconds: Int) -> String {
        let seconds = Int(runStarted.timeIntervalSince1970.rounded(.down)) - 1 - lagSeconds
        return TableAPIDateFormat.string(fromSeconds: seconds)
    }

    /// The window as encoded-query terms, to AND to the filter (``EncodedQuery/and(_:)``).
    public var terms: [EncodedQuery.Term] {
        var terms: [EncodedQuery.Term] = []
        if let cursor {
            terms.append(Self.term(field, .greaterThanOrEquals, cursor))
            if let sysID {
                terms.append(
                    EncodedQuery.Term(conditions: [
                        Self.condition(field, .greaterThan, cursor), Self.condition("sys_id", .greaterThan, sysID),
                    ]))
            }
            terms.append(Self.term(field, .lessThanOrEquals, signpost))
        } else {
            terms.append(
                EncodedQuery.Term(conditions: [
                    Self.condition(field, .lessThanOrEquals, signpost),
                    EncodedQuery.Condition(field: field, op: .isEmpty, value: .none),
                ]))
        }
        return terms
    }

    /// The lower bound for logs: `after (C, L)`, `from C`, or `the whole table`.
    public var lowerDescription: String {
        guard let cursor else { return "the whole table" }
        guard let sysID else { return "from \(cursor)" }
        return "after \(cursor) \(sysID)"
    }

    private static func term(_ field: String, _ op: EncodedQuery.Operator, _ value: String) -> EncodedQuery.Term {
        EncodedQuery.Term(conditions: [condition(field, op, value)])
    }

    private static func condition(_ field: String, _ op: EncodedQuery.Operator, _ value: String)
        -> EncodedQuery.Condition
    {
        EncodedQuery.Condition(field: field, op: op, value: .literal(value))
    }
}

/// The greatest `(cursor value, sys_id)` pair of delivered records: where the next incremental run
/// continues after. Ordered by the value's text (`YYYY-MM-DD HH:MM:SS` sorts as time), then sys_id.
public struct CursorMark: Sendable, Hashable, Comparable, Codable {
    /// The cursor field's stored value.
    public var value: String
    /// The record's sys_id.
    public var sysID: String

    /// Creates a mark.
    public init(value: String, sysID: String) {
        self.value = value
        self.sysID = sysID
    }

    public static func < (left: CursorMark, right: CursorMark) -> Bool {
        (left.value, left.sysID) < (right.value, right.sysID)
    }

    /// The greater of two optional marks.
    static func max(_ left: CursorMark?, _ right: CursorMark?) -> CursorMark? {
        guard let left else { return right }
        guard let right else { return left }
        return Swift.max(left, right)
    }
}

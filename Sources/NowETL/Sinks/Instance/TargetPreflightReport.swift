/// What an `instance:` output allows the pre-flight to find on its target before the run writes:
/// `on_schema_mismatch:` and `side_effects:`.
///
/// ```yaml
/// on_schema_mismatch: fail   # fail (default): exit 78 with the list | warn: log it and go on
/// side_effects: refuse       # refuse (default): exit 78 with the list | accept: log it and go on
/// ```
public struct TargetPreflightPolicy: Sendable, Hashable {
    /// What a field, type or choice value the target lacks does to the run.
    public enum OnSchemaMismatch: String, Sendable, Hashable, Codable, CaseIterable {
        /// Stop before anything is written (exit 78), listing every mismatch.
        case fail
        /// Log every mismatch as a warning and write all the same.
        case warn
    }

    /// What business rules, notifications and flows of the target that the writes would start do to
    /// the run — and what a side-effect table the credentials cannot read does.
    public enum SideEffects: String, Sendable, Hashable, Codable, CaseIterable {
        /// Stop before anything is written (exit 78), listing them.
        case refuse
        /// Log them as warnings and write all the same.
        case accept
    }

    /// See ``OnSchemaMismatch``; default ``OnSchemaMismatch/fail``.
    public var onSchemaMismatch: OnSchemaMismatch
    /// See ``SideEffects``; default ``SideEffects/refuse``.
    public var sideEffects: SideEffects

    /// Creates a policy; the defaults stop at anything found.
    public init(onSchemaMismatch: OnSchemaMismatch = .fail, sideEffects: SideEffects = .refuse) {
        self.onSchemaMismatch = onSchemaMismatch
        self.sideEffects = sideEffects
    }
}

/// What the pre-flight of one `instance:` output found on its target (``TargetPreflight``): the
/// fields, types and choice values the target lacks, the business rules, notifications and flows the
/// writes would start, and the side-effect tables it could not read. Every text that came from an
/// instance is already escaped for a terminal (``InstanceMatching/shown(_:)``).
public struct TargetPreflightReport: Sendable, Hashable {
    /// A way in which the target does not fit what the run writes.
    public struct Mismatch: Sendable, Hashable {
        /// The migrated table.
        public var table: String
        /// The field, empty for the table itself.
        public var field: String
        /// What is wrong, for people.
        public var problem: String
    }

    /// A business rule, notification or flow of the target that a write of the table starts.
    public struct SideEffect: Sendable, Hashable {
        /// What kind of record starts it.
        public enum Kind: String, Sendable, Hashable {
            case businessRule = "business rule"
            case notification
            case flow
        }

        /// The migrated table.
        public var table: String
        /// Rule, notification or flow.
        public var kind: Kind
        /// Its name, shown escaped.
        public var name: String
        /// Its sys_id (checked by ``SysIDRule``, else shown escaped).
        public var sysID: String
        /// When it runs: `before insert, update (on task)`, `on event incident.assigned`.
        public var action: String
    }

    /// A side-effect table the pre-flight could not read: what it holds was not checked.
    public struct Unchecked: Sendable, Hashable {
        /// The migrated table.
        public var table: String
        /// The table that could not be read (`sys_script`).
        public var source: String
        /// Why, for people (`HTTP 403`).
        public var reason: String
    }

    /// The target's base URL (never with credentials).
    public var target: String
    /// What the output allows.
    public var policy: TargetPreflightPolicy
    /// Every mismatch found.
    public var mismatches: [Mismatch] = []
    /// Every side effect found.
    public var sideEffects: [SideEffect] = []
    /// The side-effect tables that could not be read.
    public var unchecked: [Unchecked] = []

    /// Creates an empty report.
    public init(target: String, policy: TargetPreflightPolicy) {
        self.target = target
        self.policy = policy
    }

    /// Whether the mismatches stop the run.
    public var refusesMismatches: Bool { !mismatches.isEmpty && policy.onSchemaMismatch == .fail }
    /// Whether the side effects (or the ones that could not be checked) stop the run.
    public var refusesSideEffects: Bool {
        !(sideEffects.isEmpty && unchecked.isEmpty) && policy.sideEffects == .refuse
    }

    /// One line per finding, mismatches first: `incident: field u_tier is not in the target's dictionary`.
    public var lines: [String] {
        mismatches.map { "\($0.table): " + ($0.field.isEmpty ? "" : "field \($0.field) ") + $0.problem }
            + sideEffects.map { "\($0.table): \($0.kind.rawValue) \($0.name) (sys_id \($0.sysID)) runs \($0.action)" }
            + unchecked.map {
                "\($0.table): cannot read \($0.source) on the target (\($0.reason)): its side effects were not checked"
            }
    }

    /// The error that stops the run (``NowETLError/Code/targetPreflight``, exit 78), `nil` when the
    /// policy lets it go on; it counts what the ``lines`` list.
    public var refusal: NowETLError? {
        var parts: [String] = []
        if refusesMismatches {
            parts.append(
                "\(mismatches.count) schema mismatch\(mismatches.count == 1 ? "" : "es") (fix the target's dictionary "
                    + "or choices, or set on_schema_mismatch: warn)")
        }
        if refusesSideEffects {
            let found = sideEffects.count
            var text =
                "\(found) business rule\(found == 1 ? "" : "s"), notification\(found == 1 ? "" : "s") or "
                + "flow\(found == 1 ? "" : "s") the writes would start"
            if !unchecked.isEmpty { text += " and \(unchecked.count) side-effect table(s) that could not be read" }
            parts.append(text + " (silence them on the target, or set side_effects: accept)")
        }
        guard !parts.isEmpty else { return nil }
        return NowETLError(
            .targetPreflight, path: target,
            "the pre-flight against the target \(target) found " + parts.joined(separator: " and ")
                + "; nothing was written")
    }
}

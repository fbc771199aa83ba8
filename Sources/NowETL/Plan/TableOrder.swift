/// The order a run writes its tables in: referenced tables before the tables that reference them (users
/// and groups before incidents), so that a migration's references resolve on the target as rows arrive.
///
/// Three ways to an order (``Basis``):
/// - **Pipeline order**, when nothing needs more (``PipelineConfiguration/needsDependencyOrder`` is false
///   and the pipeline has no `order:`): the dictionary is not read at all.
/// - **Explicit**, the pipeline's `order:` (``explicit(_:selecting:)``): the dictionary is not read.
/// - **From the dictionary** (``computed(_:ancestors:)``): a stable topological order over the reference
///   fields of the tables' dictionaries (``TableDictionary``, inherited fields included).
///
/// The rules of the computed order:
/// - A table comes after every other table of the run that one of its `reference` fields points into;
///   ties keep pipeline order, so a run without references between its tables keeps exactly the pipeline
///   order.
/// - **Which table a reference points into.** A field referencing `X` points into table `P` of the run
///   when `P` is `X` or an ancestor of `X` (`super_class` chain): reading `task` returns the incidents
///   too, so a reference to `incident` is a reference into a run's `task`. That is a *definite* edge.
/// - A field referencing an ancestor of `P` (a `task` reference — `task.parent` — when `incident` is in
///   the run) may point at a row of any class of the hierarchy, an incident or a problem. It is a
///   *possible* edge: it orders the tables too, but only where it does not close a cycle (it is left out
///   then), since every two classes of one hierarchy would otherwise form a cycle through their common
///   parent's fields. Possible edges are considered after every definite one: first those that agree
///   with pipeline order (the referenced table is listed earlier), then the others, each in pipeline
///   order of the referencing table, then of the referenced one. So two classes that reach each other
///   only through their parent keep pipeline order.
/// - References to tables outside the run are ignored, and so are self-references (`sys_user.manager`,
///   `incident.parent` for a run of incidents alone).
/// - Only fields of type `reference` count: `domain_id` (`sys_domain`, whose value is a domain such as
///   `global`, set up before any migration — and which the dictionary gives as a `sys_user_group`
///   reference, so counting it would make users and groups a cycle on every instance) and `document_id`
///   (no fixed target) do not.
/// - Every field of the dictionary counts, whatever `fields:` says: a migration writes every field.
/// - Definite edges that form a cycle (`sys_user.department → cmn_department`,
///   `cmn_department.dept_head → sys_user`) are a ``NowETLError`` (``NowETLError/Code/tableCycle``, exit 78) naming the tables and
///   fields; an explicit `order:` decides instead.
public struct TableOrder: Sendable, Hashable {
    /// Where an order came from.
    public enum Basis: String, Sendable, Hashable {
        /// The pipeline's `tables:` order (nothing asked for another).
        case pipeline
        /// The pipeline's `order:`.
        case explicit
        /// The reference fields of the instance's dictionary.
        case dictionary
    }

    /// A reference field that puts its table after another: its name and the table it references.
    public struct ReferenceField: Sendable, Hashable {
        /// The field (`caller_id`).
        public var name: String
        /// The table the dictionary says it references (`sys_user`; `task` for `parent`).
        public var target: String
    }

    /// `table` comes after `after` because of `fields`.
    public struct Dependency: Sendable, Hashable, CustomStringConvertible {
        /// The referencing table (`incident`).
        public var table: String
        /// The table written before it (`sys_user`).
        public var after: String
        /// The fields of ``table`` that reference ``after``, by name.
        public var fields: [ReferenceField]

        /// Creates a dependency.
        public init(table: String, after: String, fields: [ReferenceField]) {
            self.table = table
            self.after = after
            self.fields = fields
        }

        /// `incident after sys_user (caller_id, opened_by)`; a field whose target is not ``after``
        /// itself says which table it references: `incident after problem (parent → task)`.
        public var description: String {
            "\(table) after \(after) (\(fields.map { describe($0) }.joined(separator: ", ")))"
        }

        /// `sys_user.department → cmn_department`, each field, for cycle messages.
        var edges: String {
            fields.map { "\(table).\($0.name) → \($0.target)" }.joined(separator: ", ")
        }

        private func describe(_ field: ReferenceField) -> String {
            field.target == after ? field.name : "\(field.name) → \(field.target)"
        }
    }

    /// The tables, in the order to write them.
    public var tables: [String]
    /// Where the order came from.
    public var basis: Basis
    /// Why each table comes after others (``Basis/dictionary`` only), in the order of ``tables``, then of
    /// the tables they come after.
    public var dependencies: [Dependency]

    /// Creates an order.
    public init(tables: [String], basis: Basis, dependencies: [Dependency] = []) {
        self.tables = tables
        self.basis = basis
        self.dependencies = dependencies
    }

    /// The tables as the pipeline lists them.
    public static func pipelineOrder(_ tables: [String]) -> TableOrder {
        TableOrder(tables: tables, basis: .pipeline)
    }

    /// The pipeline's `order:`, keeping only the tables of `tables` (a `--table` selection); a table of
    /// `tables` that `order` does not name (``PipelineConfiguration`` forbids that) comes last, in the
    /// order of `tables`.
    public static func explicit(_ order: [String], selecting tables: [String]) -> TableOrder {
        let ordered = order.filter { tables.contains($0) }
        return TableOrder(tables: ordered + tables.filter { !ordered.contains($0) }, basis: .explicit)
    }

    /// The order the reference fields of `dictionaries` ask for (see the type's rules).
    ///
    /// - Parameters:
    ///   - dictionaries: The run's tables' dictionaries, in pipeline order.
    ///   - ancestors: The `super_class` chain (child first, the table itself included) of referenced
    ///     tables outside the run; a table it does not list counts as having no ancestors.
    /// - Throws: ``NowETLError`` (``NowETLError/Code/tableCycle``) when definite references form a cycle.
    public static func computed(_ dictionaries: [TableDictionary], ancestors: [String: [String]] = [:])
        throws(NowETLError) -> TableOrder
    {
        let names = dictionaries.map(\.table)
        let position = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        func chain(of table: String) -> [String] {
            if let index = position[table] { return dictionaries[index].chain }
            return ancestors[table] ?? [table]
        }
        // definite[a][p]: table a comes after table p, for these fields; possible likewise.
        var definite = [[Int: [ReferenceField]]](repeating: [:], count: names.count)
        var possible = [[Int: [ReferenceField]]](repeating: [:], count: names.count)
        for (a, dictionary) in dictionaries.enumerated() {
            for field in dictionary.fields where field.internalType == "reference" {
                guard let target = field.reference else { continue }
                let targetChain = chain(of: target)
                let reference = ReferenceField(name: field.name, target: target)
                for (p, other) in dictionaries.enumerated() where p != a {
                    if targetChain.contains(other.table) {
                        definite[a][p, default: []].append(reference)
                    } else if other.chain.dropFirst().contains(target) {
                        possible[a][p, default: []].append(reference)
                    }
                }
            }
        }
        var edges = definite
        if let cycle = Self.cycle(in: edges) {
            throw .tableCycle(
                cycle.map { (a, p) in
                    Dependency(table: names[a], after: names[p], fields: definite[a][p] ?? [])
                })
        }
        // Possible edges that agree with pipeline order first (the referenced table is listed earlier),
        // so two classes that reach each other only through their parent keep pipeline order.
        let candidates = names.indices.flatMap { a in possible[a].keys.sorted().map { (a, $0) } }
        for (a, p) in candidates.filter({ $0.1 < $0.0 }) + candidates.filter({ $0.1 > $0.0 }) {
            guard let fields = possible[a][p] else { continue }
            if let existing = edges[a][p] {
                edges[a][p] = (existing + fields).sorted { $0.name < $1.name }
            } else if !Self.reaches(p, a, in: edges) {
                edges[a][p] = fields
            }
        }
        let order = Self.stableOrder(edges) ?? Array(names.indices)
        let rank = Dictionary(order.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        var dependencies: [Dependency] = []
        for a in order {
            for p in edges[a].keys.sorted(by: { rank[$0, default: 0] < rank[$1, default: 0] }) {
                dependencies.append(Dependency(table: names[a], after: names[p], fields: edges[a][p] ?? []))
            }
        }
        return TableOrder(tables: order.map { names[$0] }, basis: .dictionary, dependencies: dependencies)
    }

    /// For `nowetl validate --online` and the run's log: the order, then one line per dependency.
    public var explanation: [String] {
        let source =
            switch basis {
            case .pipeline: "pipeline order"
            case .explicit: "from the pipeline's order:"
            case .dictionary: "referenced tables first, from the dictionary"
            }
        return ["table order (\(source)): \(tables.joined(separator: ", "))"]
            + dependencies.map { "  \($0.description)" }
    }

    // MARK: Graph

    /// The indices in a stable topological order — repeatedly the first table, in pipeline order, whose
    /// tables to come after are all placed — or `nil` when `edges` have a cycle.
    private static func stableOrder(_ edges: [[Int: [ReferenceField]]]) -> [Int]? {
        var placed = [Bool](repeating: false, count: edges.count)
        var order: [Int] = []
        while order.count < edges.count {
            guard
                let next = edges.indices.first(where: { index in
                    !placed[index] && edges[index].keys.allSatisfy { placed[$0] }
                })
            else { return nil }
            placed[next] = true
            order.append(next)
        }
        return order
    }

    /// A cycle of `edges` as (table, table it comes after) pairs, starting at its first table in pipeline
    /// order, or `nil` when there is none.
    private static func cycle(in edges: [[Int: [ReferenceField]]]) -> [(Int, Int)]? {
        // The tables a stable order cannot place: each waits for another of them, so walking from the
        // first, always to the first table it waits for, must come back to a table already walked.
        var placed = [Bool](repeating: false, count: edges.count)
        var progress = true
        while progress {
            progress = false
            for index in edges.indices where !placed[index] && edges[index].keys.allSatisfy({ placed[$0] }) {
                placed[index] = true
                progress = true
            }
        }
        guard var current = edges.indices.first(where: { !placed[$0] }) else { return nil }
        var walk: [Int] = []
        while !walk.contains(current) {
            walk.append(current)
            guard let next = edges[current].keys.filter({ !placed[$0] }).min() else { return nil }
            current = next
        }
        guard let start = walk.firstIndex(of: current) else { return nil }
        var cycle = Array(walk[start...])
        // Start the message at the cycle's first table in pipeline order.
        if let first = cycle.indices.min(by: { cycle[$0] < cycle[$1] }) {
            cycle = Array(cycle[first...] + cycle[..<first])
        }
        return cycle.indices.map { (cycle[$0], cycle[($0 + 1) % cycle.count]) }
    }

    /// Whether `from` comes after `to`, directly or through other tables.
    private static func reaches(_ from: Int, _ to: Int, in edges: [[Int: [ReferenceField]]]) -> Bool {
        var seen: Set<Int> = [from]
        var pending = [from]
        while let index = pending.popLast() {
            if index == to { return true }
            for next in edges[index].keys where seen.insert(next).inserted { pending.append(next) }
        }
        return false
    }
}

import NowData

/// Checks every name a pipeline's tables use against the instance's dictionary before the first page,
/// so a typo fails with exit 78 instead of exporting the wrong data: an instance widens a filter on an
/// unknown field to the whole table, and answers an unknown field or column path with empty values.
///
/// What is checked, per table (``problems(in:tables:)``):
/// - **The table**: it must have a `sys_db_object` row (else the closest name it has is suggested).
/// - **`fields:`**: each name, dot-walks included (`caller_id.manager.name`), must be a field of the
///   table or of an ancestor (`sys_db_object.super_class` chain, so `task` fields are valid on
///   `incident`); each step of a dot-walk must be a reference, and the next name a field of the
///   referenced table (and its ancestors).
/// - **`columns:` paths**: the same, after the Table API's value-form suffix: `.value` and
///   `.display_value` are valid on any field but empty under `display_value: true` and `false`
///   respectively (the instance sends only one form then), `.link` only on references.
/// - **`filter:`**: every field the encoded query names (``EncodedQuery/fieldReferences(in:)``):
///   condition fields, `SAMEAS`-style compared fields, `ORDERBY` fields, dot-walks included.
///
/// - **`cursor:`** of an incremental table: a field of the table (or an ancestor) holding a date-time
///   (``cursorTypes``), since its stored value orders the changes.
/// - **`journal:`**: each name a journal field of the table or an ancestor (``journalTypes``).
///
/// `sys_id` is always valid. A dot-walk through a reference whose target the dictionary does not name
/// (`document_id` fields, an empty `reference`) cannot be checked further and is accepted, and so are
/// paths the instance resolves outside sys_dictionary: `sys_tags.…`, `variables.…`, `ref_<table>.…`.
///
/// Each table's dictionary is read once (``DictionaryCache``), referenced tables too. A user who may
/// not read `sys_db_object` or `sys_dictionary` gets a ``NowETLError`` of code
/// ``NowETLError/Code/authentication`` (exit 77) saying so — a 403, or rows hidden so that a table
/// that exists lists no fields: the check is never skipped silently.
public struct DictionaryNameCheck: Sendable {
    /// How dictionaries are read.
    public let discovery: FieldDiscovery
    /// The dictionaries already read; the run's planner reads from the same cache.
    public let cache: DictionaryCache

    /// Creates a check.
    public init(discovery: FieldDiscovery, cache: DictionaryCache = DictionaryCache()) {
        self.discovery = discovery
        self.cache = cache
    }

    /// The problems of the tables named `tables` (every table for none), in pipeline and file order.
    ///
    /// - Throws: ``NowETLError`` naming the table when the dictionary cannot be read (requests failed, or
    ///   this user may not read it: code ``NowETLError/Code/authentication``).
    public func problems(in configuration: PipelineConfiguration, tables: [String] = []) async throws(NowETLError)
        -> [DictionaryNameProblem]
    {
        var problems: [DictionaryNameProblem] = []
        for (index, table) in configuration.tables.enumerated() where tables.isEmpty || tables.contains(table.table) {
            problems += try await self.problems(in: table, at: index)
        }
        return problems
    }

    /// The problems of one table, `tables[index]` of its pipeline.
    ///
    /// - Throws: ``NowETLError`` as ``problems(in:tables:)``.
    public func problems(in table: TableConfiguration, at index: Int) async throws(NowETLError)
        -> [DictionaryNameProblem]
    {
        guard let dictionary = try await dictionary(of: table.table, for: table.table) else {
            if try await dictionary(of: "sys_db_object", for: table.table) == nil {
                throw Self.accessError(
                    table: table.table,
                    "sys_db_object lists neither '\(table.table)' nor itself for this user")
            }
            return [
                DictionaryNameProblem(
                    tableIndex: index, place: .table, utf8Offset: 0,
                    message: await Self.unknownTable(table.table, discovery: discovery))
            ]
        }
        var problems: [DictionaryNameProblem] = []
        func report(_ place: DictionaryNameProblem.Place, _ problem: PathProblem?) {
            guard let problem else { return }
            problems.append(
                DictionaryNameProblem(
                    tableIndex: index, place: place, utf8Offset: problem.offset,
                    message: problem.message(
                        place: DictionaryNameProblem.describe(place, tableIndex: index))))
        }
        for (fieldIndex, field) in (table.fields ?? []).enumerated() {
            report(.field(fieldIndex), try await walk(field, from: dictionary, forms: []).problem)
        }
        for (columnIndex, column) in (table.columns ?? []).enumerated() {
            report(.columnPath(columnIndex), try await columnProblem(column.path, table: table, from: dictionary))
        }
        let references: [EncodedQuery.FieldReference]
        do {
            references = try EncodedQuery.fieldReferences(in: table.filter)
        } catch {
            // TableConfiguration parses its filter, so this cannot happen; if it did, say so.
            report(.filter, PathProblem(offset: error.offset) { "invalid encoded query in \($0): \(error.message)" })
            references = []
        }
        for reference in references {
            if var problem = try await walk(reference.field, from: dictionary, forms: []).problem {
                problem.offset += reference.utf8Offset
                report(.filter, problem)
            }
        }
        if let cursor = table.incremental?.cursor {
            let walked = try await walk(cursor, from: dictionary, forms: [])
            if let problem = walked.problem {
                report(.cursor, problem)
            } else if let field = walked.field, !Self.cursorTypes.contains(field.internalType) {
                report(
                    .cursor,
                    PathProblem(offset: 0) { place in
                        "cursor '\(cursor)' in \(place) is a \(field.internalType) field; an incremental table's "
                            + "cursor must be a date-time field (glide_date_time), such as sys_updated_on"
                    })
            }
        }
        for (journalIndex, name) in table.wholeRecord.journal.enumerated() {
            let walked = try await walk(name, from: dictionary, forms: [])
            if let problem = walked.problem {
                report(.journal(journalIndex), problem)
            } else if let field = walked.field, !Self.journalTypes.contains(field.internalType) {
                report(
                    .journal(journalIndex),
                    PathProblem(offset: 0) { place in
                        "'\(name)' in \(place) is a \(field.internalType) field; journal: names journal fields "
                            + "(journal, journal_input), such as work_notes and comments"
                    })
            }
        }
        return problems
    }

    /// The field types whose entries live in `sys_journal_field` (ref §5).
    public static let journalTypes: Set<String> = ["journal", "journal_input", "journal_list"]

    /// The field types an incremental cursor may have: date-times, stored as `YYYY-MM-DD HH:MM:SS` UTC.
    public static let cursorTypes: Set<String> = ["glide_date_time", "due_date", "date_time"]

    // MARK: Paths

    /// What is wrong at one place of a path: the offset of the offending name in the path and the message
    /// without the place, which ``message(place:)`` adds.
    private struct PathProblem {
        var offset: Int
        var text: (String) -> String

        func message(place: String) -> String { text(place) }
    }

    /// A path walked: its last field (`nil` when the walk went where the dictionary cannot follow), or
    /// the problem.
    private struct Walk {
        var field: DictionaryField?
        var problem: PathProblem?
    }

    private func columnProblem(_ path: String, table: TableConfiguration, from dictionary: TableDictionary)
        async throws(NowETLError) -> PathProblem?
    {
        let recordPath = RecordPath(path)
        let forms = Self.forms(under: table.displayValue)
        guard let base = recordPath.field, let form = recordPath.form else {
            return try await walk(path, from: dictionary, forms: forms).problem
        }
        let walked = try await walk(base, from: dictionary, forms: forms)
        if let problem = walked.problem { return problem }
        guard let field = walked.field else { return nil }
        let suffixOffset = base.utf8.count + 1
        switch form {
        case .link where !field.isReference:
            return PathProblem(offset: suffixOffset) { place in
                "'\(path)' in \(place) names a link, but '\(base)' is a \(field.internalType) field; only "
                    + "reference fields have a link"
            }
        case .displayValue where table.displayValue == .actual:
            return PathProblem(offset: suffixOffset) { place in
                "'\(path)' in \(place) is always empty under display_value: false (the instance sends only "
                    + "stored values); write '\(base)', or set display_value: all to read both forms"
            }
        case .value where table.displayValue == .display:
            return PathProblem(offset: suffixOffset) { place in
                "'\(path)' in \(place) is always empty under display_value: true (the instance sends only "
                    + "display values); write '\(base)', or set display_value: all to read both forms"
            }
        default:
            return nil
        }
    }

    /// The value-form suffixes a column path may end in under `mode`, for suggestions.
    private static func forms(under mode: DisplayValueMode) -> [String] {
        switch mode {
        case .actual: ["value", "link"]
        case .display: ["display_value", "link"]
        case .all: ["value", "display_value", "link"]
        }
    }

    /// Walks the dot path `path` from `dictionary`; `forms` are the suffixes suggested for a misspelt
    /// last name (empty where a path names fields only).
    private func walk(_ path: String, from start: TableDictionary, forms: [String]) async throws(NowETLError)
        -> Walk
    {
        let names = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        // Names the instance resolves outside sys_dictionary: tags (`sys_tags.<sys_id>`), catalog
        // variables (`variables.<name>`) and the walk into a child class (`ref_incident.caller_id`).
        if names.count > 1, let first = names.first, Self.resolvedOutsideTheDictionary(first) { return Walk() }
        var dictionary = start
        var offset = 0
        var previous: DictionaryField?
        var walkedPrefix = ""
        for (position, name) in names.enumerated() {
            let isLast = position == names.count - 1
            if let previous {
                guard previous.isReference else {
                    let suggestion =
                        isLast ? KeySuggestion.closest(to: name, among: forms.filter { $0 != "link" }) : nil
                    let prefix = walkedPrefix
                    return Walk(
                        problem: PathProblem(offset: offset) { place in
                            "'\(path)' in \(place) dot-walks from '\(prefix)', a \(previous.internalType) field "
                                + "of \(dictionary.table), but only reference fields lead to other fields"
                                + Self.didYouMean(suggestion.map { prefix + "." + $0 })
                        })
                }
                guard let target = previous.reference,
                    let referenced = try await self.dictionary(of: target, for: start.table)
                else { return Walk() }
                dictionary = referenced
            }
            if let field = dictionary.field(named: name) ?? (name == "sys_id" ? Self.sysID(of: dictionary) : nil) {
                previous = field
            } else {
                let candidates = dictionary.fields.map(\.name) + (isLast && position > 0 ? forms : [])
                let suggestion = KeySuggestion.closest(to: name, among: candidates)
                let prefix = walkedPrefix
                let described = dictionary.describedWithAncestors
                return Walk(
                    problem: PathProblem(offset: offset) { place in
                        let whose =
                            position == 0
                            ? "\(described) has no such field"
                            : "'\(prefix)' refers to \(described), which has no such field"
                        let path = names.count > 1 ? " of '\(path)'" : ""
                        return "unknown field '\(name)'\(path) in \(place): \(whose)" + Self.didYouMean(suggestion)
                    })
            }
            walkedPrefix += (position == 0 ? "" : ".") + name
            offset += name.utf8.count + 1
        }
        return Walk(field: previous)
    }

    /// Whether a dot path starting with `name` is one the instance resolves without a dictionary entry.
    private static func resolvedOutsideTheDictionary(_ name: String) -> Bool {
        name == "sys_tags" || name == "variables" || (name.hasPrefix("ref_") && name.count > 4)
    }

    /// What to say of `table` when `sys_db_object` has no row for it — `table 'incidnet' is not in the
    /// instance's sys_db_object (no such table); did you mean 'incident'?` — with the closest name the
    /// user may see (``FieldDiscovery/tableNames(for:)``); `run`, `preview`, `validate`, `discover` and
    /// `init` say it alike.
    static func unknownTable(_ table: String, discovery: FieldDiscovery) async -> String {
        // A suggestion is a courtesy: when the names cannot be read, the problem stands without one.
        let names = (try? await discovery.tableNames(for: table)) ?? []
        return "table '\(table)' is not in the instance's sys_db_object (no such table)"
            + didYouMean(KeySuggestion.closest(to: table, among: names))
    }

    private static func didYouMean(_ suggestion: String?) -> String {
        suggestion.map { "; did you mean '\($0)'?" } ?? ""
    }

    /// `sys_id`, which every record has, for a dictionary that does not list it.
    private static func sysID(of dictionary: TableDictionary) -> DictionaryField {
        DictionaryField(name: "sys_id", internalType: "GUID", definedOn: dictionary.chain.last ?? dictionary.table)
    }

    // MARK: Reading

    /// The dictionary of `table` through the cache; a table that exists but lists no fields means the
    /// user may not read sys_dictionary.
    private func dictionary(of table: String, for pipelineTable: String) async throws(NowETLError)
        -> TableDictionary?
    {
        let dictionary: TableDictionary?
        do throws(NowETLError) {
            dictionary = try await cache.dictionary(of: table, using: discovery)
        } catch {
            if error.code == .authentication {
                // A 401 or 403: the runner tells which (``NowETLError/refusal(in:accounts:)``) and who asked.
                throw NowETLError(
                    .authentication, table: pipelineTable,
                    "cannot check the pipeline's names against the instance's dictionary", cause: error.cause)
            }
            throw error
        }
        if let dictionary, dictionary.fields.isEmpty {
            throw Self.accessError(
                table: pipelineTable, "sys_dictionary lists no fields for '\(table)', which sys_db_object has")
        }
        return dictionary
    }

    /// The user may not read the dictionary: `detail` says how that showed, `cause` is the refusal.
    private static func accessError(table: String, _ detail: String, cause: (any Error)? = nil) -> NowETLError {
        NowETLError(
            .authentication, table: table,
            "cannot check the pipeline's names against the instance's dictionary: \(detail)", cause: cause,
            remedy: "the user needs read access to sys_db_object and sys_dictionary")
    }
}

import NowData

/// Decides a ``TablePlan`` from a table's configuration and the instance's dictionary.
///
/// The rules:
/// - **Fields**: the configured `fields`, or — when there are none — every field of the table and its
///   ancestors from `sys_dictionary` (``FieldDiscovery``), sorted by name.
/// - **Columns**: the configured `columns`, or one `string` column per field named like the field,
///   whose path is the field itself. That path reads the stored value under `display_value: false`
///   and `all`, and the display value under `true` (the only form then sent). A pipeline that wants
///   both forms in CSV or JSON declares columns for `field.value` and `field.display_value`.
/// - **References**: under `display_value: all`, a column whose path is exactly a reference field
///   (per the dictionary) is marked ``ColumnSchema/isReference``, so XML unload writes
///   `<caller_id display_value="…">sys_id</caller_id>`. The planner never changes the display mode a
///   pipeline asked for: under `false` or `true` no column is a reference, and unload files carry no
///   `display_value` attributes (an instance imports them all the same). With explicit `fields` the
///   dictionary is read only under `all`, and a dictionary that cannot be read there just leaves the
///   columns unmarked.
/// - **Unload**: with an XML unload output (`unload: true`) the plan also has
///   ``TablePlan/unloadColumns``: the table's fields — the configured `fields` that are not dot-walked,
///   or every dictionary field — plus `sys_id`, sorted by name, each read as its stored value
///   (`field.value`), references and choices (per the dictionary) with their display value. So the
///   unload is importable whatever `columns:` says. The request then reads those fields too, with
///   both value forms (`sysparm_display_value=all`), and the dictionary is read even with explicit
///   `fields` (when it cannot be read there, no field gets a `display_value` attribute; an instance
///   imports the file all the same). The columns keep the display mode the pipeline asked for: a
///   path naming just a field still gives the form that mode sends.
/// - **Migration** (with an `instance:` output, `migration: true`): the unload columns, built as for an
///   unload but from every field of the dictionary (inherited ones included) whatever `fields:` and
///   `columns:` say, so the target receives the stored value of every field but the journal fields
///   (writing one would add an entry; `journal:` carries the entries). The dictionary must be
///   read: a table whose dictionary cannot be read fails, rather than migrate some fields only. Each
///   such column carries what its field points at (``ColumnSchema/target``: references, lists,
///   document ids), for the sys_id maps of coalesced tables.
/// - **Links**: `sysparm_exclude_reference_link=true` unless a column path ends in `.link`.
/// - **Partitions**: `source.concurrency` consecutive sys_id ranges (``SysIDRange/partitions(_:)``).
/// - **Types** (with a database output, `typed: true`): a column without a `type:` whose path reads a
///   field's stored value — `field.value`, or `field` unless `display_value: true` — takes the
///   dictionary's type (``DictionaryField/columnType``), in every output of the table. The dictionary
///   is then read even with explicit `fields`, and a dictionary that cannot be read fails the table
///   (a database table typed one run and untyped the next would be a type change).
/// - **Display columns** (with a database output, ``TableConfiguration/wantsDisplayColumns``: display
///   values read and `display_columns:` not false): a column whose path is a reference or choice field
///   (per the dictionary; `field` or `field.value`) is marked ``ColumnSchema/hasDisplayColumn``, so a
///   database output adds `<column>_display` beside it with the field's display value (under
///   `display_value: true` the column's own text, the only form sent). Skipped when a column of that
///   name exists. Files do not see the mark.
/// - **Date-time fields** (with a file output that has `datetime_format: iso8601`): a column without a
///   `type:` (and not typed by a database output) whose path reads the stored value of a `glide_date_time` or `due_date` field (per the
///   dictionary; `field.value`, or `field` unless `display_value: true`) is marked
///   ``ColumnSchema/isDateTimeField``, so that output writes its text as ISO 8601. Other outputs see
///   no difference. The dictionary is then read even with explicit `fields`, and one that cannot be
///   read fails the table (the output would silently keep the instance's form otherwise).
/// - **Incremental**: the run's ``IncrementalWindow`` is AND-ed into the filter, the cursor field is
///   read even when `fields:` leaves it out (it is not a column then), and with `deletes: true` a last
///   column ``TablePlan/deletedAtColumn`` (a date-time, empty on the table's own rows) is added.
public struct TablePlanner: Sendable {
    /// The discovery used for dictionary reads.
    public let discovery: FieldDiscovery
    /// The source settings (concurrency, page size).
    public let source: SourceConfiguration
    /// The dictionaries already read (by the run's ``DictionaryNameCheck``), so planning reads none twice.
    public let cache: DictionaryCache

    /// Creates a planner.
    public init(discovery: FieldDiscovery, source: SourceConfiguration, cache: DictionaryCache = DictionaryCache()) {
        self.discovery = discovery
        self.source = source
        self.cache = cache
    }

    /// Plans `table`; `unload` when one of its outputs is an XML unload, `typed` when one is a database,
    /// `migration` when one is another instance, `dateTimeFields` when one writes ISO 8601 date-times.
    ///
    /// - Throws: ``NowETLError`` naming the table when fields must be discovered, `typed` columns need their types, a
    ///   migration needs every field or date-time fields must be known, and the dictionary cannot be read.
    public func plan(
        _ table: TableConfiguration, unload: Bool = false, typed: Bool = false, migration: Bool = false,
        dateTimeFields: Bool = false, window: IncrementalWindow? = nil
    ) async throws(NowETLError) -> TablePlan {
        var dictionary: [DictionaryField] = []
        if table.fields == nil || typed || migration || dateTimeFields {
            dictionary = try await cache.fields(of: table.table, using: discovery)
            if dictionary.isEmpty {
                throw NowETLError(.failed, table: table.table, "sys_dictionary lists no fields for the table")
            }
        } else if table.displayValue == .all || unload {
            dictionary = (try? await cache.fields(of: table.table, using: discovery)) ?? []
        }
        return Self.plan(
            table, dictionary: dictionary, source: source, unload: unload, typed: typed, migration: migration,
            dateTimeFields: dateTimeFields, window: window)
    }

    /// Plans `table` with a dictionary already read (empty when unknown); `unload` when one of its
    /// outputs is an XML unload, `typed` when one is a database, `migration` when one is another instance,
    /// `dateTimeFields` when one writes ISO 8601 date-times.
    public static func plan(
        _ table: TableConfiguration, dictionary: [DictionaryField], source: SourceConfiguration,
        unload: Bool = false, typed: Bool = false, migration: Bool = false, dateTimeFields: Bool = false,
        window: IncrementalWindow? = nil
    ) -> TablePlan {
        var fields = table.fields ?? dictionary.map(\.name)
        let references = Set(dictionary.filter(\.isReference).map(\.name))
        func isReference(_ path: String) -> Bool {
            table.displayValue == .all && references.contains(path)
        }
        let types =
            typed ? Dictionary(dictionary.map { ($0.name, $0.columnType) }, uniquingKeysWith: { a, _ in a }) : [:]
        /// The field whose stored value `path` reads (`field.value`, or `field` unless display values
        /// are what the instance sends), or `nil`.
        func storedValueField(_ path: String) -> String? {
            let field = path.hasSuffix(".value") ? String(path.dropLast(".value".count)) : path
            if field == path, table.displayValue == .display { return nil }
            return field
        }
        func dictionaryType(_ path: String) -> ColumnType {
            guard typed, let field = storedValueField(path) else { return .string }
            return types[field] ?? .string
        }
        let dateTimes =
            dateTimeFields ? Set(dictionary.filter { $0.columnType == .dateTime }.map(\.name)) : []
        func isDateTimeField(_ path: String, _ type: ColumnType) -> Bool {
            guard type == .string, let field = storedValueField(path) else { return false }
            return dateTimes.contains(field)
        }
        var columns: [PlannedColumn]
        if let configured = table.columns {
            columns = configured.map { column in
                let type = column.typeIsDeclared ? column.type : dictionaryType(column.path)
                return PlannedColumn(
                    path: RecordPath(column.path),
                    schema: ColumnSchema(
                        name: column.name, type: type, isReference: isReference(column.path),
                        isDateTimeField: !column.typeIsDeclared && isDateTimeField(column.path, type)))
            }
        } else {
            columns = fields.map { field in
                let type = dictionaryType(field)
                return PlannedColumn(
                    path: RecordPath(field),
                    schema: ColumnSchema(
                        name: field, type: type, isReference: isReference(field),
                        isDateTimeField: isDateTimeField(field, type)))
            }
        }
        var options = table.displayValue.readOptions
        var unloadColumns: [PlannedColumn] = []
        if unload || migration {
            let withDisplayValue = Set(dictionary.filter { $0.isReference || $0.isChoice }.map(\.name))
            let everyField = migration ? dictionary.map(\.name) : []
            // A migration never writes a journal field: writing one adds an entry on the target; the
            // entries travel as sys_journal_field rows (`journal:`), with their authors and times.
            let journalFields =
                migration
                ? Set(dictionary.filter { DictionaryNameCheck.journalTypes.contains($0.internalType) }.map(\.name)) : []
            let names = Set(fields.filter { !$0.contains(".") } + everyField + ["sys_id"]).subtracting(journalFields)
                .sorted()
            let targets = migration ? dictionary.reduce(into: [String: FieldTarget]()) { $0[$1.name] = $1.target } : [:]
            unloadColumns = names.map { name in
                PlannedColumn(
                    path: RecordPath(name + ".value"),
                    schema: ColumnSchema(
                        name: name, isReference: withDisplayValue.contains(name), target: targets[name]))
            }
            if table.fields != nil {
                for name in names where !fields.contains(name) { fields.append(name) }
            }
            options.formUnion(DisplayValueMode.all.readOptions)
        }
        if typed, table.wantsDisplayColumns {
            let labelled = Set(dictionary.filter { $0.isReference || $0.isChoice }.map(\.name))
            var names = Set(columns.map(\.schema.name))
            for index in columns.indices {
                let path = columns[index].path.text
                let field = path.hasSuffix(".value") ? String(path.dropLast(".value".count)) : path
                let name = columns[index].schema.name + TablePlan.displayColumnSuffix
                // A column the pipeline named so itself wins: no second column of that name.
                guard labelled.contains(field), !names.contains(name) else { continue }
                names.insert(name)
                columns[index].schema.hasDisplayColumn = true
            }
        }
        if !columns.contains(where: { $0.path.form == .link }) { options.insert(.excludeReferenceLink) }
        if let window, table.fields != nil, !fields.contains(window.field) { fields.append(window.field) }
        let deletes = window != nil && table.incremental?.deletes == true
        if deletes {
            columns.append(
                PlannedColumn(
                    path: RecordPath(TablePlan.deletedAtColumn),
                    schema: ColumnSchema(name: TablePlan.deletedAtColumn, type: .dateTime)))
        }
        var plan = TablePlan(
            table: table.table, filter: window.map { table.query.and($0.terms) } ?? table.query,
            displayValue: table.displayValue,
            readConfiguration: FieldReadConfiguration(includeFields: fields, options: options), columns: columns,
            partitions: SysIDRange.partitions(source.concurrency), pageSize: source.pageSize, dictionary: dictionary)
        plan.unloadColumns = unloadColumns
        plan.incremental = window
        if window != nil { plan.unwindowedFilter = table.query }
        plan.capturesDeletes = deletes
        return plan
    }
}

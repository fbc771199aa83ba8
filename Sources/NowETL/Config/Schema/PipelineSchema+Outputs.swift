// The items of `outputs:`. Top level, source and tables: PipelineSchema+Pipeline.swift.

extension PipelineSchema {
    /// An item of `outputs:`: one key naming the kind.
    static let output = Mapping(
        path: "outputs[]",
        summary: "One output: a mapping with exactly one key, the kind.",
        keys: [
            .optional("csv", .mapping(csv), "A CSV file per table (RFC 4180, UTF-8)."),
            .optional("json", .mapping(json), "A JSON Lines (or JSON array) file per table."),
            .optional("xml", .mapping(xml), "An XML file per table: an instance-importable unload, or plain records."),
            .optional("sqlite", .mapping(sqlite), "A table per pipeline table in a SQLite database."),
            .optional("postgres", .mapping(server(postgres: true)), "A table per pipeline table in PostgreSQL."),
            .optional("mysql", .mapping(server(postgres: false)), "A table per pipeline table in MySQL or MariaDB."),
            .optional("instance", .mapping(instance), "The rows written into another instance (a migration)."),
        ],
        exactlyOne: [OutputConfiguration.Kind.allCases.map(\.rawValue)],
        example: """
            - csv:  { path: "{table}-{run_date}.csv.gz" }
            - xml:  { path: "{table}.xml", format: unload }
            - json: { path: "{table}.jsonl.gz", split: { rows: 1000000 } }
            - sqlite: { path: report.db }
            - postgres: { url: "${PG_URL}", schema: servicenow }
            """)

    /// The path of a file output; `placeholders` names what may appear in it.
    static let filePath = Key.required(
        "path", .string(),
        "The file, relative to `output_dir`. Placeholders: "
            + OutputPathTemplate.Placeholder.allCases.map { "`{\($0.rawValue)}`" }.joined(separator: ", ")
            + " (`{run_date}` is the run's UTC start date, `{part}` the number of a split part). A path ending in "
            + "`.gz` is gzip'd. It must stay inside `output_dir` (no `..`, no absolute path).")

    /// `path`, `gzip`, `compression`, `level`, `split`, which every file output has.
    static let fileKeys: [Key] = [
        filePath,
        .optional(
            "gzip", .boolean, default: "whether `path` ends in `.gz`",
            "Says the file is gzip'd; must agree with the path's `.gz` suffix."),
        .optional(
            "compression", .choice(of: Compression.Preset.self), default: "balanced",
            "How hard to gzip, for paths ending in `.gz`: `fast` (ISA-L level 1), `balanced` (ISA-L level 3) or "
                + "`small` (zlib level 9). Not with `level`."),
        .optional(
            "level", .integer(0...9), default: "`compression`'s",
            "zlib's gzip level (bytes exactly as before `compression` existed); only for paths ending in `.gz`, "
                + "not with `compression`."),
        .optional(
            "split", .mapping(split), default: "one file per table",
            "Start a new file after so many rows or bytes: `{part}` in the path places the part number, else "
                + "`-0001`, `-0002`, … go before the extension."),
        .optional(
            "keep_runs", .integer(1...RunRetention.maximumKeepRuns), default: "every run's files stay",
            "For a per-run path (`{run_id}` or `{run_date}`): after each commit, the files of committed runs "
                + "older than the newest N are removed (only files a committed run's manifest listed). Not with "
                + "`publish: { mode: directories }`, which has `keep`."),
    ]

    /// `datetime_format`, shared by the text formats.
    static let dateTimeFormat = Key.optional(
        "datetime_format", .choice(of: DateTimeFormat.self), default: "instance",
        "`instance`: date-times as the Table API sends them (`2024-03-01 08:30:00`, UTC); `iso8601`: "
            + "`2024-03-01T08:30:00Z`.")

    static let split = Mapping(
        path: "outputs[].*.split",
        summary: "Exactly one of `rows` or `bytes`.",
        keys: [
            .optional("rows", .integer(1...Int.max), "Rows per file."),
            .optional("bytes", .integer(1...Int.max), "Bytes per file, before compression."),
        ],
        exactlyOne: [["rows", "bytes"]],
        example: "{ rows: 1000000 }")

    static let csv = Mapping(
        path: "outputs[].csv",
        summary: "A CSV file per table: RFC 4180 quoting, UTF-8, one header row.",
        keys: fileKeys + [
            .optional(
                "delimiter", .string(), default: "\",\"",
                "One ASCII character other than a quote or a line break (`\"\\t\"` for a tab)."),
            .optional("header", .boolean, default: "true", "Write the header row."),
            .optional(
                "null", .string(), default: "\"\"",
                "The text of empty values; a value equal to it is quoted."),
            .optional(
                "line_ending", .choice(of: CSVSinkOptions.LineEnding.self), default: "crlf", "`crlf` or `lf`."),
            .optional("bom", .boolean, default: "false", "Start the file with a UTF-8 byte order mark (for Excel)."),
            .optional(
                "formula_guard", .boolean, default: "true",
                "Text a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab, CR first) gets a leading `'`."),
            dateTimeFormat,
        ],
        example: "{ path: \"{table}-{run_date}.csv.gz\", line_ending: lf }")

    static let json = Mapping(
        path: "outputs[].json",
        summary: "A JSON Lines file per table (one object per line), or one JSON array.",
        keys: fileKeys + [
            .optional("array", .boolean, default: "false", "Write one JSON array instead of JSON Lines."),
            .optional(
                "decimals_as_numbers", .boolean, default: "false",
                "Write `decimal` columns as JSON numbers instead of strings (readers may round them)."),
            dateTimeFormat,
        ],
        example: "{ path: \"{table}.jsonl.gz\" }")

    static let xml = Mapping(
        path: "outputs[].xml",
        summary: "An XML file per table.",
        keys: fileKeys + [
            .optional(
                "format", .choice(of: XMLSinkOptions.Format.self), default: "unload",
                "`unload`: what an instance's Import XML takes (every field, stored values); `records`: the "
                    + "columns as elements."),
            Key(
                name: dateTimeFormat.name, value: dateTimeFormat.value, defaultText: dateTimeFormat.defaultText,
                summary: dateTimeFormat.summary + " `format: unload` takes `instance` only."),
        ],
        example: "{ path: \"{table}.xml\", format: unload }")

    /// The keys every database output shares besides where it is.
    static func databaseKeys(server: Bool) -> [Key] {
        [
            .optional(
                "mode", .choice(of: DatabaseLoadMode.self), default: "merge",
                "`merge`: upsert by sys_id (deletion records delete); `replace`: load a new copy and swap it in, "
                    + "in one transaction; `append`: insert every row (an event log)."),
            .optional(
                "table_name", .string(pattern: #"^([A-Za-z_]|\{table\})([A-Za-z0-9_]|\{table\})*$"#),
                default: "the pipeline table's name",
                "The database table; with more than one pipeline table it must contain `{table}` (`sn_{table}`). "
                    + "Names starting with `_nowetl` are nowetl's own."),
            .optional(
                "on_type_change", .choice(of: DatabaseTypeChangePolicy.self), default: "fail",
                "When a column's type changed since the table was created: `fail`, or `recreate` the table."),
        ]
            + (server
                ? [
                    .optional(
                        "statement_timeout_seconds",
                        .integer(ServerOutputConfiguration<PostgresSinkOptions>.timeoutRange),
                        default: "3600",
                        "How long one statement may run before the server cancels it (exit 75); 0 for no limit."),
                    .optional(
                        "lock_timeout_seconds", .integer(ServerOutputConfiguration<PostgresSinkOptions>.timeoutRange),
                        default: "300", "How long one statement may wait for a lock (exit 75); 0 for no limit."),
                ] : [])
            + [
                .optional(
                    "prune", .choice(of: DatabasePrunePolicy.self),
                    default: "every_run for a full table, weekly for an incremental one",
                    "`mode: merge`: when rows the source no longer has are removed (`nowetl run --prune` forces "
                        + "it)."),
                .optional(
                    "deletes", .choice(of: DatabaseDeletePolicy.self), default: "hard",
                    "`hard` removes a deleted record's row; `soft` keeps it with `_deleted_at` set (`mode: merge`)."),
            ]
    }

    static let sqlite = Mapping(
        path: "outputs[].sqlite",
        summary: "A table per pipeline table in one SQLite database file, loaded in one transaction per run.",
        keys: [
            .required(
                "path", .string(),
                "The database file, relative to `output_dir`, created with its directory when missing. No `.gz`, "
                    + "no `split`, no `{part}`.")
        ] + databaseKeys(server: false),
        example: "{ path: report.db, mode: merge }")

    static func server(postgres: Bool) -> Mapping {
        let url =
            postgres
            ? "`postgres://user@host:5432/db`, with `sslmode`, `sslrootcert`, `connect_timeout`, `keepalives…` and "
                + "`application_name` parameters"
            : "`mysql://user@host:3306/db` (or `mariadb://`), with `sslmode` (`disable`, `prefer`, `require`, "
                + "`verify-full`: the default for a remote host), `sslrootcert`, `connect_timeout` and `socket` "
                + "parameters"
        var keys: [Key] = [
            .required("url", .string(), "The database: \(url). A password may be interpolated (`${VAR}`).")
        ]
        if postgres {
            keys.append(
                .optional(
                    "schema", .string(pattern: "^[A-Za-z_][A-Za-z0-9_]*$"), default: "public",
                    "The schema the tables go in, created when missing."))
        }
        keys += [
            .optional("password", .string(), "The password, inline (`${VAR}`); wins over one in the URL."),
            .optional("password_file", .string(), "A file holding the password."),
        ]
        keys += databaseKeys(server: true)
        return Mapping(
            path: postgres ? "outputs[].postgres" : "outputs[].mysql",
            summary: postgres
                ? "A table per pipeline table in a PostgreSQL schema, loaded with COPY in one transaction per run."
                : "A table per pipeline table in a MySQL or MariaDB database, in one transaction per run.",
            keys: keys,
            atMostOne: [["password", "password_file"]],
            example: postgres
                ? "{ url: \"postgres://etl@db.example/reports\", password_file: /etc/nowetl/pg_password, schema: servicenow }"
                : "{ url: \"mysql://etl@db.example:3306/reports\", password_file: /etc/nowetl/mysql_password }")
    }

    static let instance = Mapping(
        path: "outputs[].instance",
        summary: "Every table's rows written into another instance through its Table API, keeping sys_ids. "
            + "The target is reached with the keys of `source:` (`instance`, `auth`, `timeout_seconds`, `retry`, "
            + "`slow_request_seconds`, `allow_insecure_http`, `tls`, `proxy`).",
        keys: connectionKeys(target: true) + [
            .optional(
                "mode", .choice(of: InstanceWriteMode.self), default: "upsert",
                "`upsert`: insert what the target lacks and update what it has, by sys_id; `insert_only`: leave "
                    + "existing records as they are."),
            .optional(
                "concurrency", .integer(InstanceSinkOptions.concurrencyRange), default: "4",
                "Requests in flight against the target."),
            .optional(
                "rate_per_second", .number(nil, exclusiveMinimum: 0), default: "no ceiling",
                "The most requests per second sent to the target."),
            .optional(
                "coalesce", .dictionary(key: "table", .names), default: "none",
                "Tables matched on business keys instead of sys_id (`sys_user: [user_name]`), for a target "
                    + "already in use; references to them are rewritten to the matched records."),
            .optional(
                "on_match", .choice(of: InstanceMatching.OnMatch.self), default: "update",
                "A coalesced record that matches a target record: `update` it, or `keep` the target's."),
            .optional(
                "on_missing", .choice(of: InstanceMatching.OnMissing.self), default: "insert",
                "A coalesced record that matches none: `insert` it with its sys_id, `skip` it, or `fail`."),
            .optional(
                "on_unresolved", .choice(of: InstanceMatching.OnUnresolved.self), default: "keep",
                "A reference to a record the target does not have: `keep` the value, `clear` it, or `fail`."),
            .optional(
                "deletes", .choice(of: InstanceMatching.Deletions.self),
                default: "none: a table with `deletes: true` is refused",
                "What an incremental table's deletion records do on the target: `propagate` or `ignore`."),
            .optional(
                "on_schema_mismatch", .choice(of: TargetPreflightPolicy.OnSchemaMismatch.self), default: "fail",
                "A field, type or choice value the target lacks: `fail` before writing (exit 78), or `warn`."),
            .optional(
                "side_effects", .choice(of: TargetPreflightPolicy.SideEffects.self), default: "refuse",
                "Business rules, notifications and flows the writes would start on the target: `refuse` (exit 78) "
                    + "or `accept`."),
        ],
        example: """
            instance: ${TARGET_INSTANCE}
            auth: { basic: { user: "${TARGET_USER}", password_file: /etc/nowetl/target_password } }
            coalesce: { sys_user: [user_name] }
            """)
}

import NowData

// The pipeline file, top level, source and tables. Outputs: PipelineSchema+Outputs.swift.

extension PipelineSchema {
    /// The whole file.
    public static let pipeline = Mapping(
        path: "(top level)",
        summary: "A pipeline file: which instance to read, which tables, and where to write them.",
        keys: [
            .required(
                "version", .integer(PipelineConfiguration.supportedVersion...PipelineConfiguration.supportedVersion),
                "The file format's version; this nowetl reads version \(PipelineConfiguration.supportedVersion)."),
            .required("source", .mapping(source), "The instance to read from, and how hard to push it."),
            .required(
                "tables", .list(.mapping(table), minimum: 1),
                "The tables to export, each name once. Every table goes to every output."),
            .required(
                "outputs", .list(.mapping(output), minimum: 1),
                "Where every table is written: files, databases or another instance. With more than one table, "
                    + "a file output's `path` (and a database output's `table_name`, when given) must contain "
                    + "`{table}`; no two outputs may write the same path."),
            .optional(
                "output_dir", .string(), default: "out",
                "The directory output paths, the manifest and nowetl's own state (`.nowetl/`) live in, relative to "
                    + "the pipeline file's directory. `--output-dir` on the command line replaces it (relative to "
                    + "the working directory). `.` is the pipeline file's directory."),
            .optional(
                "file_mode", .octalMode, default: "\"0640\"",
                "The mode of the files the outputs write (data files, the manifest, SQLite databases), whatever "
                    + "the umask: three or four octal digits that let the owner read and write, with no execute or "
                    + "special bit. nowetl's own state stays 0600."),
            .optional(
                "publish", .mapping(publish), default: "in_place", "How a run's files become visible to readers."),
            .optional(
                "order", .list(.string(pattern: lowercaseName), minimum: 1),
                default: "the dictionary's reference order when an output needs it, else file order",
                "The order to write the tables in: every table of `tables` once. When given, the instance's "
                    + "dictionary is not read for an order."),
        ],
        example: """
            version: 1
            source:
              instance: ${SN_INSTANCE}
              auth: { basic: { user: "${SN_USER}", password_file: /etc/nowetl/sn_password } }
            output_dir: /var/lib/nowetl/incidents
            tables:
              - table: incident
                filter: active=true
                fields: [number, short_description, priority, sys_updated_on]
            outputs:
              - csv: { path: "{table}-{run_date}.csv.gz" }
            """)

    /// `source:`.
    static let source = Mapping(
        path: "source",
        summary: "The instance a pipeline reads from: how to reach it, sign in, and how hard it may be pushed.",
        keys: connectionKeys(target: false) + [
            .optional(
                "concurrency", .integer(SourceConfiguration.concurrencyRange), default: "4",
                "Requests in flight against the instance at once."),
            .optional(
                "page_size", .integer(SourceConfiguration.pageSizeRange), default: "1000",
                "Records per request (`sysparm_limit`)."),
            .optional(
                "max_response_mb", .integer(SourceConfiguration.maximumResponseRange),
                default: "max(64, page_size × 64 KiB)",
                "The largest answer accepted, in MiB after decompression; a larger one fails the table instead "
                    + "of exhausting memory."),
        ],
        example: """
            instance: https://acme.service-now.com
            auth: { basic: { user: etl, password_file: /etc/nowetl/sn_password } }
            concurrency: 4
            page_size: 1000
            """)

    /// The keys `source:` and an `instance:` output share (``InstanceConnection``).
    static func connectionKeys(target: Bool) -> [Key] {
        let what = target ? "the target instance" : "the instance"
        return [
            .required(
                "instance", .string(),
                "The base URL of \(what): scheme, host and port only (`https://acme.service-now.com`). Plain "
                    + "`http` is allowed for loopback hosts only, unless `allow_insecure_http: true`."),
            .required("auth", .mapping(auth(target: target)), "How to sign in to \(what): `basic` or `oauth`."),
            .optional(
                "timeout_seconds", .number(InstanceConnection.timeoutRange), default: "120",
                "How long one request may take, in seconds."),
            .optional(
                "retry", .mapping(retry(target: target)),
                default: "attempts 50, max_wait_seconds 30, total_seconds 300",
                "When to retry a request \(what) does not answer well, and for how long."),
            .optional(
                "slow_request_seconds", .number(InstanceConnection.slowRequestRange), default: "30",
                "A request without an answer this long is logged as a warning, and again every as many seconds "
                    + "while it waits."),
            .optional(
                "allow_insecure_http", .boolean, default: "false",
                "Allow plain `http` to hosts other than loopback. Credentials then cross the network in clear."),
            .optional("tls", .mapping(tls(target: target)), "Extra trusted CAs and a client certificate (mutual TLS)."),
            .optional(
                "proxy", .string(),
                default: "`HTTPS_PROXY` / `NO_PROXY` from the environment",
                "The proxy requests go through: `http`, `https`, `socks5` or `socks5h` URL with a port "
                    + "(`http://proxy.example:3128`); it may carry credentials, which are never shown."),
            .optional(
                "compressed_transfer", .choice(of: CompressedTransfer.self), default: "auto",
                "Whether requests ask \(what) for gzip-compressed answers (`Accept-Encoding: gzip`): `auto` "
                    + "asks unless the host is loopback (`localhost`, `127.0.0.0/8`, `::1`), `always` and `never` "
                    + "as written. Compression saves most of the bytes on a slow or metered link and costs CPU "
                    + "on both ends; answers are limited after decompression either way."),
        ]
    }

    /// `auth:` of the source or a target.
    static func auth(target: Bool) -> Mapping {
        let prefix = target ? "outputs[].instance" : "source"
        return Mapping(
            path: "\(prefix).auth",
            summary: "How to sign in: exactly one of `basic` or `oauth`. Secrets are given inline (usually as "
                + "`${VAR}`) or as a file (`*_file`), read when the pipeline loads; they never appear in logs.",
            keys: [
                .optional("basic", .mapping(basic(prefix)), "HTTP basic authentication with a user and password."),
                .optional(
                    "oauth", .mapping(oauth(prefix)),
                    "OAuth 2 against the instance's `/oauth_token.do`, with a client of its Application Registry."),
            ],
            exactlyOne: [["basic", "oauth"]],
            example: """
                basic: { user: etl, password_file: /etc/nowetl/sn_password }
                """)
    }

    static func basic(_ prefix: String) -> Mapping {
        Mapping(
            path: "\(prefix).auth.basic",
            summary: "A user and its password: `password` or `password_file`, exactly one.",
            keys: [
                .required("user", .string(), "The user name."),
                .optional("password", .string(), "The password, inline; write it as `${VAR}`, never in the file."),
                .optional(
                    "password_file", .string(),
                    "A file holding the password (trailing line break removed), relative to the pipeline file's "
                        + "directory; a file others may read draws a warning."),
            ],
            exactlyOne: [["password", "password_file"]])
    }

    static func oauth(_ prefix: String) -> Mapping {
        Mapping(
            path: "\(prefix).auth.oauth",
            summary: "An OAuth client: `client_secret` or `client_secret_file`, exactly one; `grant: password` also "
                + "takes a user and its password (`password` or `password_file`).",
            keys: [
                .required("client_id", .string(), "The client id from System OAuth > Application Registry."),
                .optional("client_secret", .string(), "The client secret, inline (`${VAR}`)."),
                .optional("client_secret_file", .string(), "A file holding the client secret."),
                .required(
                    "grant", .choice(of: SourceAuthentication.GrantName.self),
                    "`client_credentials` (the registry entry's OAuth Application User signs in) or `password` "
                        + "(resource-owner password grant with `user` and `password`)."),
                .optional("user", .string(), "For `grant: password`: the user name."),
                .optional("password", .string(), "For `grant: password`: the user's password, inline."),
                .optional("password_file", .string(), "For `grant: password`: a file holding the user's password."),
            ],
            exactlyOne: [["client_secret", "client_secret_file"]],
            atMostOne: [["password", "password_file"]],
            example: """
                { client_id: "${SN_CLIENT_ID}", client_secret_file: /etc/nowetl/sn_client_secret, grant: client_credentials }
                """)
    }

    static func retry(target: Bool) -> Mapping {
        Mapping(
            path: target ? "outputs[].instance.retry" : "source.retry",
            summary: "Retried are 429, 502, 503 and 504, connection errors, timeouts and cut bodies. The wait before "
                + "retry N is drawn from 0 … min(max_wait_seconds, 0.5 × 2^(N-1)) unless the instance sends "
                + "`Retry-After`, which is waited out when it ends within the budget.",
            keys: [
                .optional(
                    "attempts", .integer(RetryConfiguration.attemptsRange), default: "50",
                    "Attempts of one request, the first included."),
                .optional(
                    "max_wait_seconds", .number(RetryConfiguration.maximumWaitRange), default: "30",
                    "The longest backoff between two attempts."),
                .optional(
                    "total_seconds", .number(RetryConfiguration.totalRange), default: "300",
                    "The time budget of one request, attempts and waits together; a maintenance window shorter "
                        + "than about `total_seconds - max_wait_seconds` is waited out."),
            ])
    }

    static func tls(target: Bool) -> Mapping {
        Mapping(
            path: target ? "outputs[].instance.tls" : "source.tls",
            summary: "PEM files, relative to the pipeline file's directory, checked when the pipeline loads.",
            keys: [
                .optional("ca_file", .string(), "CA certificates trusted besides the system store."),
                .optional(
                    "client_cert", .string(), "The client certificate for mutual TLS; needs `client_key`."),
                .optional("client_key", .string(), "The unencrypted private key of `client_cert`."),
            ],
            example: """
                { ca_file: certs/corporate-ca.pem, client_cert: certs/etl.pem, client_key: certs/etl.key }
                """)
    }

    /// `publish:`.
    static let publish = Mapping(
        path: "publish",
        summary: "How a run's files become visible. `in_place` replaces the files under their names, the "
            + "manifest last; `directories` writes each run into `<output_dir>/runs/<run_id>/` and switches the "
            + "`<output_dir>/current` link to it with one rename, so a reader going through `current/` never "
            + "sees a mix of two runs.",
        keys: [
            .optional(
                "mode", .choice(of: PublishConfiguration.Mode.self), default: "in_place", "`in_place` or `directories`."
            ),
            .optional(
                "keep", .integer(1...PublishConfiguration.maximumKeep), default: "\(PublishConfiguration.defaultKeep)",
                "For `directories`: how many run directories to keep, the current one included."),
        ],
        example: "{ mode: directories, keep: 7 }")

    /// A lower-case table or field name.
    static let lowercaseName = "^[a-z0-9_]+$"

    /// An item of `tables:`.
    static let table = Mapping(
        path: "tables[]",
        summary: "One table to export.",
        keys: [
            .required("table", .string(pattern: lowercaseName), "The table's name (`incident`)."),
            .optional(
                "filter", .string(), default: "all records",
                "An encoded query (`active=true^priority<=2`), checked when the file loads; no `ORDERBY` "
                    + "(rows are always read in sys_id order)."),
            .optional(
                "fields", .names, default: "every field",
                "The fields to read (`sysparm_fields`), dot-walking allowed (`caller_id.name`)."),
            .optional(
                "display_value", .either([.boolean, .choice(["all", "true", "false"])]), default: "false",
                "Which value forms to read: `false` stored values, `true` display values, `all` both "
                    + "(`{ value, display_value }` per field)."),
            .optional(
                "display_columns", .boolean, default: "true with display values and no `columns`",
                "Database outputs: a `<column>_display` text column beside each reference and choice column. Needs "
                    + "`display_value: all` or `true`."),
            .optional(
                "choice_labels", .boolean, default: "false",
                "Database outputs: also load `<table>__choices`, the table's choice labels from `sys_choice`."),
            .optional(
                "columns", .list(.mapping(column), minimum: 1), default: "one text column per field",
                "The output columns. With `fields`, every path must start with one of them (or `sys_id`)."),
            .optional("reject", .mapping(reject), default: "fail", "What happens to a record that will not convert."),
            .optional(
                "mode", .choice(of: TableMode.self), default: "full",
                "`full`: every run reads everything the filter matches; `incremental`: runs read what changed "
                    + "since the last committed run (`cursor`, `lag_seconds`, `deletes`, `start`)."),
            .optional(
                "cursor", .string(pattern: lowercaseName), default: IncrementalConfiguration.defaultCursor,
                "`mode: incremental`: the glide_date_time field whose stored value orders the changes."),
            .optional(
                "lag_seconds", .integer(IncrementalConfiguration.lagRange), default: "0",
                "`mode: incremental`: seconds before the run's start left for the next run (clock skew, slow "
                    + "commits)."),
            .optional(
                "deletes", .boolean, default: "false",
                "`mode: incremental`: also export deletions, from `sys_audit_delete`, as records with `_deleted_at` "
                    + "set."),
            .optional(
                "start", .string(pattern: #"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$"#), default: "the whole table",
                "`mode: incremental`: the first run's lower bound, `YYYY-MM-DD HH:MM:SS` UTC (quote it)."),
            .optional(
                "attachments", .either([.boolean, .mapping(attachments)]), default: "false",
                "Export the records' attachments: `true` for all, or a selection."),
            .optional(
                "journal", .names, default: "none",
                "Journal fields whose entries travel with each record (`[work_notes, comments]`)."),
            .optional("audit", .boolean, default: "false", "Export the records' `sys_audit` rows (field history)."),
        ],
        example: """
            - table: incident
              filter: active=true^priority<=2
              fields: [number, caller_id, opened_at, sys_id]
              display_value: all
              columns:
                - { name: number, path: number.value }
                - { name: caller, path: caller_id.display_value }
                - { name: opened_at, path: opened_at.value, type: datetime }
            """)

    /// An item of `columns:`.
    static let column = Mapping(
        path: "tables[].columns[]",
        summary: "One output column.",
        keys: [
            .required(
                "name", .string(pattern: "^[A-Za-z_][A-Za-z0-9_]*$"),
                "The column's name in every output, unique in its table."),
            .required(
                "path", .string(),
                "The dot path into the record: `number`, `caller_id.display_value`, `opened_at.value`."),
            .optional(
                "type", .choice(of: ColumnType.self), default: "string (a database output takes the dictionary's type)",
                "The type the text from the Table API converts to; a value that does not convert is rejected."),
        ])

    /// `reject:`.
    static let reject = Mapping(
        path: "tables[].reject",
        summary: "What happens to a record whose value will not convert to its column's type, or whose text is "
            + "not valid UTF-8.",
        keys: [
            .optional(
                "mode", .choice(of: RejectPolicy.Mode.self), default: "fail",
                "`fail` the table naming sys_id, column and value; `skip` the record and count it; `dead_letter`: "
                    + "skip it and write it to `<table>.rejects.jsonl`."),
            .optional(
                "max", .integer(0...Int.max), default: "no limit",
                "For `skip` and `dead_letter`: more rejected records than this fail the run with exit 2."),
            .optional(
                "invalid_utf8", .choice(of: RejectPolicy.InvalidUTF8.self), default: "reject",
                "`reject` follows `mode`; `replace` turns each invalid sequence into U+FFFD and counts the record."),
        ],
        example: "{ mode: dead_letter, max: 10 }")

    /// `attachments:` as a mapping.
    static let attachments = Mapping(
        path: "tables[].attachments",
        summary: "Which attachments to export.",
        keys: [
            .optional(
                "content_types", .names, default: "all",
                "MIME types to take (`application/pdf`), `image/*` for a whole kind; compared without case."),
            .optional(
                "max_bytes", .integer(1...Int(Int64.max / 2)), default: "no limit",
                "The largest attachment taken; larger ones are left out and counted."),
        ],
        example: "{ content_types: [image/*, application/pdf], max_bytes: 50000000 }")
}

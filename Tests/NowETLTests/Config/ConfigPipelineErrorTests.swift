import NowETL
import Testing

/// Every kind of pipeline-file mistake gives one exact `file:line:column: error: message`.
@Suite(.timeLimit(.minutes(5))) struct ConfigPipelineErrorTests {
    /// One mistake and the exact diagnostic it must produce.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let yaml: String
        let environment: [String: String]
        let expected: String
        let kind: ConfigError.Kind

        init(
            _ name: String, _ yaml: String, _ kind: ConfigError.Kind, _ expected: String,
            environment: [String: String] = ["SN_PASSWORD": "hunter2"]
        ) {
            self.name = name
            self.yaml = yaml
            self.kind = kind
            self.expected = expected
            self.environment = environment
        }

        var testDescription: String { name }
    }

    /// Lines 1–4: version and source.
    static let head = """
        version: 1
        source:
          instance: https://acme.service-now.com
          auth: { basic: { user: etl, password: "${SN_PASSWORD}" } }

        """
    /// Two lines of tables.
    static let tables = """
        tables:
          - table: incident

        """
    /// Two lines of outputs.
    static let outputs = """
        outputs:
          - csv: { path: "{table}.csv" }

        """
    static let h = head
    /// The rule a wrong `file_mode` is told.
    static let fileModeRule =
        "file_mode must be an octal mode of data files such as \"0640\" or \"0600\": read and write for the "
        + "owner, no execute, setuid, setgid or sticky bits; got "
    static let t = tables
    static let o = outputs

    static let cases: [Case] = [
        // Unknown keys.
        Case(
            "unknown key with a suggestion", h + "tables:\n  - table: incident\n    filtr: active=true\n" + o,
            .unknownKey,
            "p.yaml:7:5: error: unknown key 'filtr' in tables[0]; did you mean 'filter'?"),
        Case(
            "misspelt required top-level key", h + "tabels:\n  - table: incident\n" + o, .unknownKey,
            "p.yaml:5:1: error: unknown key 'tabels' at the top level; did you mean 'tables'?"),
        Case(
            "unknown key without a close match", h + "tables:\n  - table: incident\n    colour: blue\n" + o,
            .unknownKey,
            "p.yaml:7:5: error: unknown key 'colour' in tables[0]; expected one of table, filter, fields, "
                + "display_value, display_columns, choice_labels, columns, reject, mode, cursor, lag_seconds, deletes, start, attachments, journal, audit"
        ),
        Case(
            "misspelt key in a flow mapping",
            "version: 1\nsource:\n  instance: https://acme.service-now.com\n  auth: { basic: { user: etl, pasword: x } }\n"
                + t + o, .unknownKey,
            "p.yaml:4:31: error: unknown key 'pasword' in source.auth.basic; did you mean 'password'?"),
        Case(
            "unknown output format", h + t + "outputs:\n  - parquet: { path: a.parquet }\n", .unknownKey,
            "p.yaml:8:5: error: unknown key 'parquet' in outputs[0]; expected one of csv, xml, json, sqlite, postgres, mysql, instance"
        ),

        // Types.
        Case(
            "word for an integer", h + "  page_size: many\n" + t + o, .typeMismatch,
            "p.yaml:5:14: error: expected an integer for source.page_size, got \"many\""),
        Case(
            "quoted integer", h + "  page_size: \"1000\"\n" + t + o, .typeMismatch,
            "p.yaml:5:14: error: expected an integer for source.page_size, got the quoted string \"1000\"; "
                + "remove the quotes"),
        Case(
            "yes for a boolean", h + t + "outputs:\n  - csv: { path: \"{table}.csv\", header: yes }\n", .typeMismatch,
            "p.yaml:8:41: error: expected true or false for outputs[0].csv.header, got \"yes\"; write true or false "
                + "(YAML 1.1 words such as yes, no, on and off, and other spellings, are not accepted)"),
        Case(
            "comma-separated fields", h + "tables:\n  - table: incident\n    fields: number,state\n" + o,
            .typeMismatch,
            "p.yaml:7:13: error: expected a list for tables[0].fields, got \"number,state\"; write a list such as "
                + "[number,state]"),
        Case(
            "YAML null as CSV null text", h + t + "outputs:\n  - csv: { path: \"{table}.csv\", null: NULL }\n",
            .typeMismatch,
            "p.yaml:8:39: error: expected a string for outputs[0].csv.null, got null; write \"NULL\" in quotes for "
                + "the text"),
        Case(
            "substituted value is shown as written", h + "  page_size: ${PAGE}\n" + t + o, .typeMismatch,
            "p.yaml:5:14: error: expected an integer for source.page_size, got \"${PAGE}\" (after substituting "
                + "environment variables)", environment: ["SN_PASSWORD": "hunter2", "PAGE": "s3cr3t"]),

        // Missing keys.
        Case(
            "missing table name", h + "tables:\n  - table: incident\n  - filter: active=true\n" + o, .missingKey,
            "p.yaml:7:5: error: missing key 'table' in tables[1]"),
        Case(
            "missing source", "version: 1\n" + t + o, .missingKey,
            "p.yaml:1:1: error: missing key 'source' at the top level"),

        // Enumerations.
        Case(
            "bad display_value", h + "tables:\n  - table: incident\n    display_value: some\n" + o, .invalidValue,
            "p.yaml:7:20: error: expected one of false, true, all for tables[0].display_value, got \"some\""),
        Case(
            "display_columns without display values",
            h + "tables:\n  - table: incident\n    display_columns: true\n" + o, .invalidValue,
            "p.yaml:7:22: error: tables[0].display_columns: true needs display values to fill them; set "
                + "display_value: all (or true), or leave display_columns out"),
        Case(
            "reject mode with a suggestion",
            h + "tables:\n  - table: incident\n    reject: { mode: dead-letter }\n" + o,
            .invalidValue,
            "p.yaml:7:21: error: expected one of fail, skip, dead_letter for tables[0].reject.mode, got "
                + "\"dead-letter\"; did you mean 'dead_letter'?"),
        Case(
            "column type with a suggestion",
            h + "tables:\n  - table: incident\n    columns: [{ name: opened, path: opened_at, type: datetme }]\n" + o,
            .invalidValue,
            "p.yaml:7:54: error: expected one of string, int, decimal, bool, datetime, date, duration for "
                + "tables[0].columns[0].type, got \"datetme\"; did you mean 'datetime'?"),

        Case(
            "unknown datetime_format",
            h + t + "outputs:\n  - csv: { path: \"{table}.csv\", datetime_format: iso }\n", .invalidValue,
            "p.yaml:8:50: error: expected one of instance, iso8601 for outputs[0].csv.datetime_format, got \"iso\""),
        Case(
            "ISO 8601 date-times in an unload",
            h + t + "outputs:\n  - xml: { path: \"{table}.xml\", datetime_format: iso8601 }\n", .invalidValue,
            "p.yaml:8:50: error: outputs[0].xml.datetime_format must be instance for format: unload (an instance's "
                + "import reads its own date-times only); use format: records for ISO 8601 date-times"),

        // version.
        Case(
            "version 2", "version: 2\n" + h.dropFirst(11) + t + o, .unsupportedVersion,
            "p.yaml:1:10: error: unsupported version 2; this nowetl reads version 1 pipeline files"),
        Case(
            "quoted version", "version: \"1\"\n" + h.dropFirst(11) + t + o, .typeMismatch,
            "p.yaml:1:10: error: expected an integer for version, got the quoted string \"1\"; remove the quotes"),
        Case(
            "missing version", String(h.dropFirst(11)) + t + o, .unsupportedVersion,
            "p.yaml:1:1: error: missing key 'version' at the top level; a pipeline file is a mapping that starts "
                + "with version: 1"),
        Case(
            "empty file", "# nothing here yet\n", .unsupportedVersion,
            "p.yaml: error: the file is empty; a pipeline file is a mapping that starts with version: 1"),

        // Filters: the position of the offending character inside the scalar.
        Case(
            "bad query, plain scalar", h + "tables:\n  - table: incident\n    filter: active=true^priority~2\n" + o,
            .invalidValue,
            "p.yaml:7:33: error: invalid encoded query in tables[0].filter: unknown operator in \"priority~2\""),
        Case(
            "bad query, double-quoted with an escape",
            h + "tables:\n  - table: incident\n    filter: \"active=\\u0074rue^priority~2\"\n" + o, .invalidValue,
            "p.yaml:7:39: error: invalid encoded query in tables[0].filter: unknown operator in \"priority~2\""),
        Case(
            "bad query, single-quoted with a doubled quote",
            h + "tables:\n  - table: incident\n    filter: 'short_description=it''s^priority~2'\n" + o,
            .invalidValue,
            "p.yaml:7:46: error: invalid encoded query in tables[0].filter: unknown operator in \"priority~2\""),
        Case(
            "bad query after a substitution",
            h + "tables:\n  - table: incident\n    filter: ${BASE}^priority~2\n" + o, .invalidValue,
            "p.yaml:7:29: error: invalid encoded query in tables[0].filter: unknown operator in \"priority~2\"",
            environment: ["SN_PASSWORD": "hunter2", "BASE": "active=true"]),
        Case(
            "bad query in a block scalar points at its start",
            h + "tables:\n  - table: incident\n    filter: >-\n      active=true^priority~2\n" + o, .invalidValue,
            "p.yaml:7:13: error: invalid encoded query in tables[0].filter: unknown operator in \"priority~2\""),
        Case(
            "sorting filter", h + "tables:\n  - table: incident\n    filter: active=true^ORDERBYnumber\n" + o,
            .invalidValue,
            "p.yaml:7:25: error: tables[0].filter must not sort (ORDERBY): rows are always exported in sys_id order"
        ),

        // Environment.
        Case(
            "unset variable", h + t + o, .environment,
            "p.yaml:4:42: error: environment variable SN_PASSWORD is not set (used for source.auth.basic.password); "
                + "set it (environment, --var, .env beside the pipeline file), or give a default with "
                + "${SN_PASSWORD:-default}", environment: [:]),
        Case(
            "empty variable", h + t + o, .environment,
            "p.yaml:4:42: error: environment variable SN_PASSWORD is empty (used for source.auth.basic.password); "
                + "set it, or give a default with ${SN_PASSWORD:-default}", environment: ["SN_PASSWORD": ""]),
        Case(
            "malformed reference",
            "version: 1\nsource:\n  instance: ${SN INSTANCE}\n  auth: { basic: { user: etl, password: x } }\n" + t + o,
            .environment,
            "p.yaml:3:13: error: malformed reference '${SN INSTANCE}' in source.instance; write ${NAME} or "
                + "${NAME:-default}, and $$ for a literal $"),

        // YAML syntax.
        Case(
            "duplicate key", h + "tables:\n  - table: incident\n    table: problem\n" + o, .syntax,
            "p.yaml:7:5: error: duplicate key 'table' in tables[0] (first at line 6, column 5)"),
        Case(
            "tab indentation", "version: 1\nsource:\n\tinstance: x\n", .syntax,
            "p.yaml:3:1: error: found a tab character where YAML expects indentation; indent with spaces"),
        Case(
            "inconsistent indentation", "version: 1\nsource:\n  instance: x\n auth: y\n", .syntax,
            "p.yaml:4:2: error: did not find expected key (while parsing a block mapping at line 1, column 1); "
                + "check the indentation, and quote values that contain ': '"),
        Case(
            "unquoted ${VAR} in a flow mapping",
            "version: 1\nsource:\n  instance: https://acme.service-now.com\n  auth: { basic: { user: ${SN_USER}, password: x } }\n",
            .syntax,
            "p.yaml:4:26: error: did not find expected ',' or '}'; inside { } and [ ], quote values that use ${VAR}: "
                + "\"${VAR}\""),
        Case(
            "two documents", h + t + o + "---\nversion: 1\n", .syntax,
            "p.yaml:9:1: error: a pipeline file holds one YAML document, but a second one starts here; remove the '---'"
        ),

        // Output paths.
        Case(
            "unknown placeholder", h + t + "outputs:\n  - csv: { path: \"{tabel}.csv\" }\n", .invalidValue,
            "p.yaml:8:19: error: invalid path in outputs[0].csv.path: unknown placeholder '{tabel}'; did you mean "
                + "'{table}'?"),
        Case(
            "absolute path", h + t + "outputs:\n  - csv: { path: \"/tmp/{table}.csv\" }\n", .invalidValue,
            "p.yaml:8:19: error: invalid path in outputs[0].csv.path: the path must be relative to output_dir, "
                + "not absolute"),
        Case(
            "path escaping output_dir", h + t + "outputs:\n  - csv: { path: \"a/../../{table}.csv\" }\n",
            .invalidValue,
            "p.yaml:8:21: error: invalid path in outputs[0].csv.path: '..' is not allowed in the path: it could "
                + "climb out of output_dir"),
        Case(
            "{part} without split", h + t + "outputs:\n  - csv: { path: \"{table}-{part}.csv\" }\n", .invalidValue,
            "p.yaml:8:27: error: {part} in outputs[0].csv.path needs a split setting (split: { rows: N })"),
        Case(
            "split with zero rows", h + t + "outputs:\n  - csv: { path: \"{table}.csv\", split: { rows: 0 } }\n",
            .invalidValue,
            "p.yaml:8:48: error: outputs[0].csv.split.rows must be between 1 and 9223372036854775807, got 0"),
        Case(
            "gzip false with .gz", h + t + "outputs:\n  - json: { path: \"{table}.jsonl.gz\", gzip: false }\n",
            .invalidValue,
            "p.yaml:8:45: error: outputs[0].json.gzip is false, but the path ends in .gz; remove .gz or the gzip setting"
        ),
        Case(
            "level without gzip", h + t + "outputs:\n  - json: { path: \"{table}.jsonl\", level: 3 }\n", .invalidValue,
            "p.yaml:8:36: error: outputs[0].json.level applies only to gzip'd outputs (paths ending in .gz)"),
        Case(
            "compression without gzip", h + t + "outputs:\n  - csv: { path: \"{table}.csv\", compression: fast }\n",
            .invalidValue,
            "p.yaml:8:33: error: outputs[0].csv.compression applies only to gzip'd outputs (paths ending in .gz)"),
        Case(
            "compression and level",
            h + t
                + "outputs:\n  - xml: { path: \"{table}.xml.gz\", compression: small, level: 9 }\n",
            .invalidValue,
            "p.yaml:8:56: error: outputs[0].xml.level and compression: small both choose the gzip engine; keep one "
                + "(level: 0…9 is zlib's level, as before compression: existed)"),
        Case(
            "unknown compression", h + t + "outputs:\n  - json: { path: \"{table}.jsonl.gz\", compression: tiny }\n",
            .invalidValue,
            "p.yaml:8:52: error: expected one of fast, balanced, small for outputs[0].json.compression, got \"tiny\""),
        Case(
            "two tables, one file",
            h + "tables:\n  - table: incident\n  - table: problem\n"
                + "outputs:\n  - csv: { path: export.csv }\n", .invalidValue,
            "p.yaml:9:18: error: outputs[0].csv.path must contain {table} when the pipeline exports more than one table"
        ),
        Case(
            "two outputs, one path",
            h + t + "outputs:\n  - csv: { path: \"{table}.csv\" }\n  - csv: { path: \"{table}.csv\", bom: true }\n",
            .invalidValue,
            "p.yaml:9:18: error: outputs[1].csv.path is the same path as outputs[0]; each output needs its own file"),
        Case(
            "two formats in one item", h + t + "outputs:\n  - { csv: { path: a.csv }, xml: { path: a.xml } }\n",
            .invalidValue,
            "p.yaml:8:29: error: outputs[0] has both csv and xml; write each output as its own list item (- xml: …)"),
        Case(
            "long delimiter", h + t + "outputs:\n  - csv: { path: \"{table}.csv\", delimiter: \";;\" }\n",
            .invalidValue,
            "p.yaml:8:44: error: outputs[0].csv.delimiter must be one ASCII character other than a quote or a line "
                + "break (write \"\\t\" for a tab)"),

        // Source.
        Case(
            "concurrency out of range", h + "  concurrency: 64\n" + t + o, .invalidValue,
            "p.yaml:5:16: error: source.concurrency must be between 1 and 32, got 64"),
        Case(
            "plain http",
            "version: 1\nsource:\n  instance: http://acme.service-now.com\n"
                + "  auth: { basic: { user: etl, password: x } }\n" + t + o, .invalidValue,
            "p.yaml:3:13: error: source.instance uses plain http, which would send credentials unencrypted; use "
                + "https, or set source.allow_insecure_http: true"),
        Case(
            "credentials in the instance URL",
            "version: 1\nsource:\n  instance: ${SN_INSTANCE}\n  auth: { basic: { user: etl, password: x } }\n" + t + o,
            .invalidValue,
            "p.yaml:3:13: error: source.instance must not contain a user name or password; put credentials under "
                + "source.auth", environment: ["SN_INSTANCE": "https://admin:hunter2@acme.service-now.com"]),
        Case(
            "browser URL as instance",
            "version: 1\nsource:\n  instance: https://acme.service-now.com/now/nav/ui\n"
                + "  auth: { basic: { user: etl, password: x } }\n" + t + o, .invalidValue,
            "p.yaml:3:13: error: source.instance must be the instance's base URL such as https://acme.service-now.com, "
                + "without a path, query or fragment"),
        Case(
            "password and password_file",
            "version: 1\nsource:\n  instance: https://acme.service-now.com\n"
                + "  auth: { basic: { user: etl, password: x, password_file: /run/secrets/sn } }\n" + t + o,
            .invalidValue,
            "p.yaml:4:44: error: give either password or password_file in source.auth.basic, not both"),
        Case(
            "missing secret file",
            "version: 1\nsource:\n  instance: https://acme.service-now.com\n"
                + "  auth: { basic: { user: etl, password_file: /nonexistent/sn } }\n" + t + o, .secretFile,
            "p.yaml:4:46: error: cannot read the secret file '/nonexistent/sn' named by "
                + "source.auth.basic.password_file: No such file or directory"),
        Case(
            "empty inline password",
            "version: 1\nsource:\n  instance: https://acme.service-now.com\n"
                + "  auth: { basic: { user: etl, password: \"\" } }\n" + t + o, .invalidValue,
            "p.yaml:4:41: error: source.auth.basic.password is empty"),
        Case(
            "basic and oauth",
            "version: 1\nsource:\n  instance: https://acme.service-now.com\n  auth:\n    basic: { user: a, password: b }\n"
                + "    oauth: { client_id: c, client_secret: d, grant: client_credentials }\n" + t + o, .invalidValue,
            "p.yaml:6:5: error: source.auth takes exactly one of basic or oauth, not both"),
        Case(
            "client_credentials with a user",
            "version: 1\nsource:\n  instance: https://acme.service-now.com\n  auth:\n"
                + "    oauth: { client_id: c, client_secret: d, grant: client_credentials, user: etl }\n" + t + o,
            .invalidValue,
            "p.yaml:5:73: error: source.auth.oauth.user applies only to grant: password, not client_credentials"),

        // Tables.
        Case(
            "no tables", h + "tables: []\n" + o, .invalidValue, "p.yaml:5:9: error: tables must list at least one table"
        ),
        Case(
            "upper-case table name", h + "tables:\n  - table: Incident\n" + o, .invalidValue,
            "p.yaml:6:12: error: table name 'Incident' is not valid: use lower-case letters, digits and underscores"),
        Case(
            "table name with a dash", h + "tables:\n  - table: inci-dent\n" + o, .invalidValue,
            "p.yaml:6:16: error: table name 'inci-dent' is not valid: use lower-case letters, digits and underscores"),
        Case(
            "same table twice", h + "tables:\n  - table: incident\n  - table: incident\n" + o, .invalidValue,
            "p.yaml:7:12: error: table 'incident' appears twice in tables (first as tables[0])"),
        Case(
            "empty field list", h + "tables:\n  - table: incident\n    fields: []\n" + o, .invalidValue,
            "p.yaml:7:13: error: tables[0].fields must not be empty; leave it out instead"),
        Case(
            "same column twice",
            h + "tables:\n  - table: incident\n    columns:\n      - { name: n, path: number }\n"
                + "      - { name: n, path: state }\n" + o, .invalidValue,
            "p.yaml:9:17: error: column 'n' appears twice in tables[0].columns (first at [0])"),
        Case(
            "column path outside the fields",
            h + "tables:\n  - table: incident\n    fields: [caller_id]\n"
                + "    columns: [{ name: caller, path: calller_id.value }]\n" + o, .invalidValue,
            "p.yaml:8:37: error: column path 'calller_id.value' in tables[0].columns[0] does not start with one of "
                + "the fields in tables[0].fields; did you mean 'caller_id'?"),
        Case(
            "publish keep with mode in_place", h + t + o + "publish: { keep: 3 }\n", .invalidValue,
            "p.yaml:9:12: error: publish.keep applies only to mode directories"),
        Case(
            "publish keep of zero", h + t + o + "publish: { mode: directories, keep: 0 }\n", .invalidValue,
            "p.yaml:9:37: error: publish.keep must be between 1 and 10000, got 0"),
        Case(
            "publish mode with a suggestion", h + t + o + "publish: { mode: directory }\n", .invalidValue,
            "p.yaml:9:18: error: expected one of in_place, directories for publish.mode, got \"directory\"; "
                + "did you mean 'directories'?"),
        Case(
            "unknown publish key", h + t + o + "publish: { mode: directories, kept: 3 }\n", .unknownKey,
            "p.yaml:9:31: error: unknown key 'kept' in publish; expected one of mode, keep"),
        Case(
            "max with mode fail", h + "tables:\n  - table: incident\n    reject: { max: 3 }\n" + o, .invalidValue,
            "p.yaml:7:15: error: tables[0].reject.max applies only to mode skip or dead_letter"),
        Case(
            "invalid_utf8 with a suggestion",
            h + "tables:\n  - table: incident\n    reject: { invalid_utf8: replaced }\n" + o, .invalidValue,
            "p.yaml:7:29: error: expected one of reject, replace for tables[0].reject.invalid_utf8, got "
                + "\"replaced\"; did you mean 'replace'?"),
        Case(
            "file_mode with an execute bit", h + t + o + "file_mode: \"0755\"\n", .invalidValue,
            "p.yaml:9:12: error: " + fileModeRule + "'0755'"),
        Case(
            "file_mode not octal", h + t + o + "file_mode: rw-r-----\n", .invalidValue,
            "p.yaml:9:12: error: " + fileModeRule + "'rw-r-----'"),
        Case(
            "file_mode the owner cannot write", h + t + o + "file_mode: \"0440\"\n", .invalidValue,
            "p.yaml:9:12: error: " + fileModeRule + "'0440'"),
        Case(
            "file_mode with setuid", h + t + o + "file_mode: \"4640\"\n", .invalidValue,
            "p.yaml:9:12: error: " + fileModeRule + "'4640'"),
    ]

    @Test(arguments: cases)
    func errorIsPositionedAndWorded(_ testCase: Case) {
        ConfigText.expectMistake(
            testCase.yaml, testCase.expected, kind: testCase.kind, environment: testCase.environment,
            hidden: ["hunter2", "s3cr3t"])
    }
}

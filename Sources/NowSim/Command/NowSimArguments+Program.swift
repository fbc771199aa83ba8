import ArgumentKit

extension NowSimArguments {
    /// nowsim's command line as one table: ``parse(_:)`` parses with it, and `--help`, the short usage
    /// of a usage error, `nowsim manpage` and `nowsim completion` are generated from it.
    public static let program = ProgramSpec(
        root: CommandSpec(
            "nowsim",
            abstract: "a local ServiceNow instance (Table API, Aggregate API, Batch API, OAuth) backed by SQLite",
            discussion: """
                nowsim serves the Table API as an instance does (the same JSON and XML, paging links, \
                display values, encoded queries, ACL errors), for tests and demos of nowetl and other clients.
                """,
            options: [.flag("--version", help: "print nowsim's version")],
            subcommands: [serveCommand, seedCommand, importCommand, completionCommand, manpageCommand]),
        version: nowsimVersion,
        exitCodes: [
            .init(0, "Stopped cleanly (SIGTERM/SIGINT), seeded, imported."),
            .init(1, "Failed (import: a file that cannot be read or imported, nothing of it applied)."),
            .init(64, "The command line is wrong."),
        ],
        exitCodesHelp: """
            EXIT CODES:
              0 stopped cleanly (SIGTERM/SIGINT), seeded, imported   1 failed (import: a file that cannot
              be read or imported, nothing of it applied)   64 usage error
            """,
        environment: [
            .init("TMPDIR", "Where serve keeps its temporary database when --db is not given.")
        ],
        seeAlso: ["nowetl(1)"])

    private static let databaseOption = OptionSpec.value(
        "--db", "PATH", help: "SQLite database (default: a temporary file removed at exit)", completion: .file)

    private static let seedValueOption = OptionSpec.value(
        "--seed-value", "S", help: "seed of the deterministic generator (default 1)")

    private static let sysIDSaltOption = OptionSpec.value(
        "--sys-id-salt", "TEXT",
        help: "give every seeded record another sys_id, names and all other values as without it: a second "
            + "instance holding the same users and groups under sys_ids of its own")

    static let serveCommand = CommandSpec(
        "serve", abstract: "serve the Table API, OAuth and nowsim's own endpoints on a port",
        discussion: """
            Faults: --fault KIND[:key=value,…] (repeatable), or at run time PUT /api/nowsim/faults \
            {"faults":[…]}. KIND one of:

              rate-limit[:retry-after=S,date=true]  status[:code=503]  delay:ms=N
              truncate[:cut=true]  acl-hide:fraction=F[,run=K]  invalid-utf8[:field=F,sys_id=S]
              retry-after:VALUE  count:VALUE  total-count:VALUE  content-encoding:VALUE   (VALUE sent verbatim)
              oversize[:SIZE]  gzip-bomb[:SIZE]  ansi-error[:code=400]  stuck-cursor

            Every fault takes table=T, every=N, after=N; with a VALUE they come first and value=VALUE \
            last (retry-after:table=incident,value=Sun, 06 Nov 1994 08:49:37 GMT). SIZE: bytes, or \
            512KB, 64MB, 1GB (default 64MB for oversize, 1GB for gzip-bomb).

            Anyone who reaches nowsim can use its credentials: a --host other than a loopback address \
            (127.0.0.0/8, ::1, localhost) while the default user admin/admin or the default OAuth client \
            nowsim/nowsim is in force is refused (exit 64) unless --allow-remote is given, and then \
            warned about on stderr; give your own --user and --oauth-client instead.

            It stops cleanly on SIGTERM or SIGINT: delayed requests are answered (503) at once, the \
            others get a few seconds to finish.
            """,
        options: [
            .value("--host", "ADDR", help: "address to listen on (default 127.0.0.1; see below for others)"),
            .value("--port", "N", help: "port (default 8080); 0 picks a free port"),
            .value("--port-file", "PATH", help: "write the port to PATH once listening", completion: .file),
            databaseOption,
            .value("--seed", "SPEC", help: "seed tables first, e.g. incident=10000,problem=500"),
            seedValueOption,
            sysIDSaltOption,
            .value(
                "--user", "SPEC", help: "an API user NAME:PASSWORD[:ROLE…] (repeatable; default admin:admin:admin)",
                repeatable: true),
            .value(
                "--oauth-client", "SPEC", help: "an OAuth client ID:SECRET (repeatable; default nowsim:nowsim)",
                repeatable: true),
            .value(
                "--table-acl", "SPEC",
                help: "TABLE=ROLE[+ROLE…]: only callers with one of the roles (or admin) read TABLE and its child "
                    + "tables; others get 403 (repeatable; the most specific table with a rule decides; default: "
                    + "all may read, except sys_audit_delete, admin only); a read of a parent table hides the rows "
                    + "of classes the caller may not read",
                repeatable: true),
            .value(
                "--row-acl", "SPEC",
                help: "USER:TABLE:ENCODED_QUERY: USER sees only the rows of TABLE (and its children) matching the "
                    + "query; applied after sysparm_limit, so pages come back short; X-Total-Count and Aggregate "
                    + "counts include the hidden rows (min/max/avg/sum and group-by values do not), a hidden "
                    + "record reads as 404 (repeatable; rules for one table OR; an unknown field is exit 64)",
                repeatable: true),
            .value(
                "--tls-cert", "PEM", help: "the certificate PEM file: serve HTTPS (with --tls-key)", completion: .file),
            .value("--tls-key", "PEM", help: "the private key PEM file of --tls-cert", completion: .file),
            .value(
                "--tls-client-ca", "PEM",
                help: "require a client certificate issued by this CA (mutual TLS; else 403)", completion: .file),
            .flag("--invalid-query-returns-no-rows", help: "emulate glide.invalid_query.returns_no_rows=true"),
            .value("--threads", "N", help: "serve with a pool of N threads (default: one thread per connection)"),
            .flag(
                "--allow-remote",
                help: "listen on a non-loopback --host even with the default credentials (warned about)"),
            .value(
                "--max-connections", "N",
                help: "serve at most N connections at once (default 256); further ones are closed at once"),
            .flag("--quiet", help: "no request log on stderr"),
            .value(
                "--fault", "SPEC", help: "misbehave on purpose (repeatable), KIND[:key=value,…]: see below",
                repeatable: true),
            .value("--access-token-lifetime", "S", help: "OAuth access token lifetime in seconds (default 1800)"),
            .value("--refresh-token-lifetime", "S", help: "OAuth refresh token lifetime in seconds (default 8640000)"),
        ])

    static let seedCommand = CommandSpec(
        "seed", abstract: "create or extend a database with deterministic records",
        options: [
            .value("--db", "PATH", help: "the SQLite file to create or extend", required: true, completion: .file),
            .value("--seed", "SPEC", help: "TABLE=N[,TABLE=N…], e.g. incident=10000,problem=500", required: true),
            seedValueOption,
            sysIDSaltOption,
        ])

    static let importCommand = CommandSpec(
        "import", abstract: "apply unload XML files to a database, as an instance's Import XML does",
        discussion: """
            Applies unload XML files (<unload><incident action="INSERT_OR_UPDATE">…) as an instance's \
            Import XML does: each record keeps its sys_id and is updated when it exists, else inserted; \
            every field is stored as given, system fields included (sys_created_on, sys_updated_on, \
            sys_created_by, sys_updated_by, sys_mod_count are not regenerated); the element name is the \
            class; fields the table lacks are ignored and counted; action="DELETE" deletes by sys_id.

            Each file is one transaction (all or nothing), files in order; a .gz file is read as is. \
            Prints one line per table; an error names FILE:LINE and stops (earlier files stay imported).

            A running nowsim imports too: POST /api/nowsim/import with the XML as body (admins).
            """,
        arguments: [ArgumentSpec("FILE.xml", help: "an unload XML file, .xml or .xml.gz", repeatable: true)],
        options: [
            .value(
                "--db", "PATH", help: "the database to import into (created when new)", required: true,
                completion: .file),
            .value(
                "--user", "NAME",
                help: "for missing sys_created_by/sys_updated_by and sys_audit_delete rows "
                    + "(default admin)"),
        ])

    static let completionCommand = CommandSpec.completion(program: "nowsim")

    static let manpageCommand = CommandSpec.manpage(program: "nowsim")
}

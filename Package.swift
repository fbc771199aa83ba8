// swift-tools-version: 6.2
// nowetl — getting data out of ServiceNow: the NowData client, the nowetl pipeline and the nowsim instance.
import PackageDescription

let package = Package(
    name: "nowetl",
    products: [
        .library(name: "NowQuery", targets: ["NowQuery"]),
        .library(name: "NowData", targets: ["NowData"]),
        .library(name: "NowSQLite", targets: ["NowSQLite"]),
        .library(name: "NowPostgres", targets: ["NowPostgres"]),
        .library(name: "NowMariaDB", targets: ["NowMariaDB"]),
        .library(name: "NowSim", targets: ["NowSim"]),
        .library(name: "NowETL", targets: ["NowETL"]),
        .library(name: "ArgumentKit", targets: ["ArgumentKit"]),
        .executable(name: "nowsim", targets: ["nowsim"]),
        .executable(name: "nowetl", targets: ["nowetl"]),
        .executable(name: "nowetl-bench", targets: ["nowetl-bench"]),
    ],
    targets: [
        // C libraries from Debian, one shim header each (ARCHITECTURE.md, *C stays behind a wall*).
        .systemLibrary(
            name: "CMicroHTTPD", pkgConfig: "libmicrohttpd",
            providers: [.apt(["libmicrohttpd-dev"])]),
        // nowsim's mutual TLS: libmicrohttpd asks for client certificates, GnuTLS (its TLS library)
        // verifies them on the session it hands out.
        .systemLibrary(
            name: "CGnuTLS", pkgConfig: "gnutls",
            providers: [.apt(["libgnutls28-dev"])]),
        .systemLibrary(
            name: "CSQLite3", pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(
            name: "CYAML", pkgConfig: "yaml-0.1",
            providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(
            name: "CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]),
        // gzip'd file outputs' fast engine (`compression: fast | balanced`): Intel ISA-L's igzip deflates
        // several times faster than zlib at levels 1–3 and, unlike libdeflate, streams with sync flushes,
        // so a file stays one gzip member (docs/guides/nightly-files.md has the figures).
        .systemLibrary(
            name: "CISAL", pkgConfig: "libisal",
            providers: [.apt(["libisal-dev"])]),
        // SHA-256 of spill parts and output files: OpenSSL's EVP digests use the CPU's SHA extensions.
        .systemLibrary(
            name: "CCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        // NowData's HTTP stack: URLSession on Linux cannot trust extra CAs, present client certificates or
        // take a proxy per session, and hangs on some 401 paths; libcurl does all of it directly.
        .systemLibrary(
            name: "CCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),
        .systemLibrary(
            name: "CLibXML2", pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]),
        // Reporting databases: libpq is PostgreSQL's own client (wire protocol, SCRAM, TLS per sslmode,
        // COPY FROM STDIN); nothing else speaks the protocol without a Swift package from outside.
        .systemLibrary(
            name: "CLibPQ", pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]),
        // MariaDB's client library (also speaks to MySQL): the wire protocol, prepared statements, TLS.
        .systemLibrary(
            name: "CMariaDB", pkgConfig: "libmariadb",
            providers: [.apt(["libmariadb-dev"])]),

        // glibc's process controls Swift cannot call (prctl is variadic): core dumps off for nowetl.
        // Part of the C library every program links, so no package and no link flag.
        .systemLibrary(name: "CProcess"),

        // Command lines: one declarative table per program, its parser, help, man page and shell completions.
        .target(name: "ArgumentKit"),

        // Encoded queries, Table API dates and sys_id ranges: the vocabulary client and instance share.
        .target(name: "NowQuery"),

        // The ServiceNow Table API client (port of the Mobile SDK's NowData framework).
        .target(name: "NowData", dependencies: ["NowQuery", "CCurl"]),

        // The one SQLite connection type (nowsim's storage, the SQLite sink).
        .target(name: "NowSQLite", dependencies: ["CSQLite3"]),

        // What the PostgreSQL and MariaDB connections share (plain Swift, no C): URL parsing, the loopback
        // check, the failure kinds and their exit codes.
        .target(name: "NowDatabaseSupport"),

        // The one PostgreSQL connection type (the PostgreSQL sink): queries, COPY FROM STDIN, transactions.
        .target(name: "NowPostgres", dependencies: ["CLibPQ", "NowDatabaseSupport"]),

        // The one MariaDB/MySQL connection type (the MySQL sink): statements, prepared statements, transactions.
        .target(name: "NowMariaDB", dependencies: ["CMariaDB", "NowDatabaseSupport"]),

        // The local ServiceNow instance (libxml2 streams unload XML files for `nowsim import`; zlib
        // compresses the `gzip-bomb` fault's body).
        .target(
            name: "NowSim",
            dependencies: ["NowQuery", "CMicroHTTPD", "CGnuTLS", "NowSQLite", "CLibXML2", "CZlib", "ArgumentKit"]),
        .executableTarget(name: "nowsim", dependencies: ["NowSim"]),

        // The export pipeline.
        .target(
            name: "NowETL",
            dependencies: [
                "NowData", "NowQuery", "NowSQLite", "NowPostgres", "NowMariaDB", "CYAML", "CZlib", "CISAL", "CCrypto",
                "CLibXML2",
                "ArgumentKit", "CProcess",
            ]),
        .executableTarget(name: "nowetl", dependencies: ["NowETL"]),
        // `make bench`'s page-decoder timing (scripts/bench.sh): every PageDecoding on the same saved pages.
        .executableTarget(name: "nowetl-bench", dependencies: ["NowETL"]),

        // What the test targets share: the one way to run a child process, the nowsim harness
        // (`withNowSim { sim in … }`, shared instances), the raw HTTP client and hang deadlines.
        .target(name: "NowSimTesting", path: "Tests/NowSimTesting"),

        .testTarget(name: "NowDataTests", dependencies: ["NowData", "NowSimTesting"]),
        // The SDK documents' examples (../shared/seeds), each as written, compiled and run against nowsim.
        .testTarget(name: "NowDataSeedTests", dependencies: ["NowData", "NowSimTesting"]),
        .testTarget(
            name: "NowETLTests",
            dependencies: [
                "NowETL", "NowData", "NowSQLite", "NowPostgres", "NowMariaDB", "NowSimTesting",
            ],
            exclude: ["Fixtures"]),
        .testTarget(
            name: "NowSimTests", dependencies: ["NowSim", "NowQuery", "NowSQLite", "NowSimTesting"],
            resources: []),
        .testTarget(name: "NowPostgresTests", dependencies: ["NowPostgres", "NowSimTesting"]),
        .testTarget(name: "NowMariaDBTests", dependencies: ["NowMariaDB", "NowSimTesting"]),

        // Fuzzing (docs/internals.md, "Fuzzing"): the checks each fuzz target runs on one input; `nowetl-fuzz`, their
        // libFuzzer driver (built with sanitizers by scripts/fuzz.sh, `make fuzz`; a plain build replays
        // files); and the test that replays the seed and regression corpora in `make test`.
        .target(name: "FuzzChecks", dependencies: ["NowETL", "NowSim", "NowQuery"], path: "Tests/Fuzz/FuzzChecks"),
        .executableTarget(name: "nowetl-fuzz", dependencies: ["FuzzChecks"], path: "Tests/Fuzz/nowetl-fuzz"),
        .testTarget(name: "FuzzTests", dependencies: ["FuzzChecks"], path: "Tests/Fuzz/FuzzTests"),
    ],
    swiftLanguageModes: [.v6]
)

import Foundation
import NowData

extension NowETLCommand {
    /// `nowetl init --instance URL --table T…`: a starter pipeline from the tables' dictionary (as
    /// `discover` reads it) that `nowetl validate` accepts as written.
    ///
    /// Without `--output` it goes to stdout; with it the file is written atomically, and an existing file
    /// is replaced only with `--force` (exit 73 otherwise, nothing written). The credentials come from
    /// `SN_CLIENT_ID`/`SN_CLIENT_SECRET` (OAuth client credentials) or `SN_USER`/`SN_PASSWORD`, as for
    /// `discover`; the file refers to them as `${…}`, with the other way to sign in commented beside it.
    static func initPipeline(
        _ options: NowETLArguments.InitOptions, environment: [String: String], streams: CommandStreams
    ) async -> Int32 {
        if let output = options.output, !options.force, FileManager.default.fileExists(atPath: output) {
            return fail(
                "\(output) exists; pass --force to replace it", code: NowETLExitCode.cannotCreate, streams: streams)
        }
        let connection: DictionaryConnection
        switch dictionaryConnection(instance: options.instance, command: "init", environment: environment) {
        case .success(let value): connection = value
        case .failure(let message): return fail(message.description, code: NowETLExitCode.usage, streams: streams)
        }
        var tables: [String] = []
        for table in options.tables {
            switch await connection.fields(of: table) {
            case .success(let fields): tables.append(DiscoveredTableYAML.render(table: table, fields: fields))
            case .failure(let failure): return fail(failure.message, code: failure.code, streams: streams)
            }
        }
        let text = StarterPipeline.render(
            instance: options.instance, oauth: connection.oauth, tables: options.tables, entries: tables,
            outputDirectory: StarterPipeline.outputDirectory(file: options.output, tables: options.tables))
        guard let output = options.output else {
            streams.standardOutput(text)
            return NowETLExitCode.ok
        }
        do {
            let directory = (output as NSString).deletingLastPathComponent
            if !directory.isEmpty {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            }
            let file = try AtomicFile(targetPath: output, displayPath: output, mode: nil)
            try Array(text.utf8).withUnsafeBytes { try file.write($0) }
            try file.commit()
        } catch {
            return fail(NowETLError.text(of: error), code: NowETLExitCode.cannotCreate, streams: streams)
        }
        streams.standardOutput(
            "wrote \(output): \(options.tables.count) table\(options.tables.count == 1 ? "" : "s"); "
                + "next: nowetl validate \(output)\n")
        return NowETLExitCode.ok
    }

    /// A client for the dictionary reads of `discover` and `init`, with the password to redact.
    struct DictionaryConnection {
        /// The Table API client, signed in with basic authentication or OAuth client credentials.
        var service: NowTableService
        /// `SN_PASSWORD` or `SN_CLIENT_SECRET`, never shown.
        var password: String
        /// Who signs in and where that is set (`SN_USER and SN_PASSWORD`), for a refusal's message.
        var account: InstanceAccount
        /// Whether the client signs in with OAuth client credentials (`SN_CLIENT_ID`, `SN_CLIENT_SECRET`).
        var oauth = false

        /// The error's text without the password; a 401 or 403 told as `run` tells it
        /// (``NowETLError/refusal(in:accounts:)``), naming the user or client and the variables.
        func redact(_ error: any Error) -> String {
            let error = NowETLError.refusal(in: error, accounts: [account]) ?? error
            return RunLogger(format: .text, minimumLevel: .error, secrets: [password], console: Console { _ in })
                .redact(NowETLError.text(of: error))
        }

        /// Why `discover` or `init` has no fields of a table: the line to print and the exit code.
        struct Failure: Error {
            var message: String
            var code: Int32
        }

        /// The fields of `table` with inherited ones, or why there are none: a table `sys_db_object`
        /// does not have is exit 1 with the closest name it has ("did you mean", as `run` says it); a
        /// failed read the error's code, its text redacted.
        func fields(of table: String) async -> Result<[DictionaryField], Failure> {
            let discovery = FieldDiscovery(service: service)
            do {
                guard try await discovery.dictionary(of: table) != nil else {
                    let message = await DictionaryNameCheck.unknownTable(table, discovery: discovery)
                    return .failure(Failure(message: message, code: NowETLExitCode.failed))
                }
                let fields = try await discovery.fields(of: table)
                guard !fields.isEmpty else {
                    return .failure(
                        Failure(message: "sys_dictionary lists no fields for '\(table)'", code: NowETLExitCode.failed))
                }
                return .success(fields)
            } catch {
                return .failure(Failure(message: redact(error), code: NowETLExitCode.code(for: error)))
            }
        }
    }

    /// Why `discover`/`init` cannot connect: a usage error (exit 64) with what to do.
    struct DictionaryConnectionProblem: Error, CustomStringConvertible {
        /// The message.
        var description: String
    }

    /// The instance URL checked and the credentials: OAuth client credentials from `SN_CLIENT_ID` and
    /// `SN_CLIENT_SECRET` when both are set (a site that allows only OAuth), else basic authentication
    /// from `SN_USER`/`SN_PASSWORD`.
    static func dictionaryConnection(instance: String, command: String, environment: [String: String])
        -> Result<DictionaryConnection, DictionaryConnectionProblem>
    {
        guard let url = URL(string: instance), let scheme = url.scheme?.lowercased(),
            scheme == "https" || scheme == "http", url.host?.isEmpty == false
        else {
            return .failure(
                DictionaryConnectionProblem(
                    description:
                        "--instance needs an http(s) URL such as https://acme.service-now.com, got '\(instance)'"))
        }
        if let clientID = environment["SN_CLIENT_ID"], !clientID.isEmpty, let secret = environment["SN_CLIENT_SECRET"],
            !secret.isEmpty
        {
            let service = NowTableService(
                configuration: NowServiceConfiguration(
                    instanceURL: url,
                    authentication: .oauth2(
                        OAuth2Credentials(clientID: clientID, clientSecret: secret, grant: .clientCredentials))))
            let account = InstanceAccount(
                instance: url, principal: "OAuth client \(clientID)", setting: "SN_CLIENT_ID and SN_CLIENT_SECRET")
            return .success(DictionaryConnection(service: service, password: secret, account: account, oauth: true))
        }
        guard let user = environment["SN_USER"], !user.isEmpty, let password = environment["SN_PASSWORD"],
            !password.isEmpty
        else {
            return .failure(
                DictionaryConnectionProblem(
                    description: "\(command) reads the credentials from SN_USER and SN_PASSWORD in the environment, "
                        + "or an OAuth client's from SN_CLIENT_ID and SN_CLIENT_SECRET (client credentials); set one "
                        + "pair (for the demo's nowsim: export SN_USER=admin SN_PASSWORD=admin). The user needs "
                        + "read access to sys_db_object and sys_dictionary (the admin role has it)"))
        }
        let service = NowTableService(
            configuration: NowServiceConfiguration(
                instanceURL: url, authentication: .basic(username: user, password: password)))
        let account = InstanceAccount(instance: url, principal: "user \(user)", setting: "SN_USER and SN_PASSWORD")
        return .success(DictionaryConnection(service: service, password: password, account: account))
    }
}

/// The text of `nowetl init`'s starter pipeline: source, output_dir, one CSV output, the tables as
/// `discover` prints them, and comments that point to the other options.
enum StarterPipeline {
    /// The pipeline for `tables` of `instance`; `entries` are the tables' ``DiscoveredTableYAML`` texts.
    /// `out/<name>` after the pipeline file's name (`out/mine` for `my-pipelines/mine.yaml`), or after the
    /// first table when the pipeline goes to stdout; a name that is not a plain file name falls back too.
    static func outputDirectory(file: String?, tables: [String]) -> String {
        let base = file.map { ((($0 as NSString).lastPathComponent) as NSString).deletingPathExtension } ?? ""
        let plain =
            !base.isEmpty
            && base.unicodeScalars.allSatisfy { scalar in
                scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || "-_.".unicodeScalars.contains(scalar)
            }
        return "out/" + (plain && !base.hasPrefix(".") ? base : (tables.first ?? "export"))
    }

    /// The pipeline for `tables` of `instance`, signing in with OAuth client credentials (`oauth`) or basic
    /// authentication, the other one commented beside it.
    static func render(
        instance: String, oauth: Bool = false, tables: [String], entries: [String], outputDirectory: String
    )
        -> String
    {
        let basic = "basic: { user: \"${SN_USER}\", password: \"${SN_PASSWORD}\" }"
        let client =
            "oauth: { client_id: \"${SN_CLIENT_ID}\", client_secret: \"${SN_CLIENT_SECRET}\", grant: client_credentials }"
        var lines = [
            "# A starter pipeline written by `nowetl init` for \(tables.joined(separator: ", ")) of \(instance).",
            "# Trim the fields and columns to what you need, then: nowetl validate FILE (--online checks the",
            "# names against the instance), nowetl preview FILE, nowetl run FILE. docs/reference/pipeline.md lists every key.",
            "version: 1",
            "source:",
            "  instance: \(DiscoveredTableYAML.scalar(instance))",
            "  auth:",
            "    # From the environment or a .env file beside this one; or password_file: /path (chmod 600).",
            "    " + (oauth ? client : basic),
            "    # Or " + (oauth ? "basic authentication" : "an OAuth client (System OAuth > Application Registry)")
                + ", one of the two:",
            "    # " + (oauth ? basic : client),
            "  concurrency: 4",
            "# Relative to this file's directory (or absolute); nowetl run --output-dir DIR overrides it.",
            "output_dir: \(outputDirectory)",
            "tables:",
        ]
        for entry in entries {
            for line in entry.split(separator: "\n", omittingEmptySubsequences: false) where !line.isEmpty {
                lines.append("  " + line)
            }
        }
        lines += [
            "outputs:",
            "  - csv: { path: \"{table}.csv.gz\" }   # formula_guard is on: values starting = + - @ get a '",
            "  # - json: { path: \"{table}.jsonl.gz\" }",
            "  # - xml: { path: \"{table}.xml\", format: unload }   # importable into an instance",
        ]
        return lines.joined(separator: "\n") + "\n"
    }
}

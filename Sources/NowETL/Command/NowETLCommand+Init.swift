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
        switch dictionaryConnection(
            instance: options.instance, command: "init", environment: environment, signIn: options.signIn)
        {
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
            instance: options.instance, oauth: connection.oauth, auth: connection.auth, tables: options.tables,
            entries: tables,
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
        /// How `init`'s pipeline names the credentials.
        var auth = StarterPipeline.Auth()

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

    /// The instance URL checked and the credentials. The command line's sign-in options win (secrets from
    /// files only); else OAuth client credentials from `SN_CLIENT_ID` and `SN_CLIENT_SECRET` when both
    /// are set (a site that allows only OAuth), else basic authentication from `SN_USER`/`SN_PASSWORD`.
    /// An option may take its other half from the environment (`--user etl` with `SN_PASSWORD`).
    static func dictionaryConnection(
        instance: String, command: String, environment: [String: String],
        signIn: NowETLArguments.SignInOptions = NowETLArguments.SignInOptions()
    ) -> Result<DictionaryConnection, DictionaryConnectionProblem> {
        guard let url = URL(string: instance), let scheme = url.scheme?.lowercased(),
            scheme == "https" || scheme == "http", url.host?.isEmpty == false
        else {
            return .failure(
                DictionaryConnectionProblem(
                    description:
                        "--instance needs an http(s) URL such as https://acme.service-now.com, got '\(instance)'"))
        }
        let environmentOAuth =
            environment["SN_CLIENT_ID"]?.isEmpty == false && environment["SN_CLIENT_SECRET"]?.isEmpty == false
        let oauth = signIn.isOAuth || (!signIn.isBasic && environmentOAuth)
        guard
            oauth || signIn.isBasic
                || (environment["SN_USER"]?.isEmpty == false && environment["SN_PASSWORD"]?.isEmpty == false)
        else {
            return .failure(
                DictionaryConnectionProblem(
                    description: "\(command) signs in with --user and --password-file, or --client-id and "
                        + "--client-secret-file, else with SN_USER and SN_PASSWORD from the environment, or an OAuth "
                        + "client's SN_CLIENT_ID and SN_CLIENT_SECRET (client credentials); give one pair (for the "
                        + "demo's nowsim: export SN_USER=admin SN_PASSWORD=admin). The user needs read access to "
                        + "sys_db_object and sys_dictionary (the admin role has it)"))
        }
        let credential: SignInCredential
        switch oauth
            ? SignInCredential.read(
                principal: (signIn.clientID, "--client-id", "SN_CLIENT_ID"),
                secret: (signIn.clientSecretFile, "--client-secret-file", "SN_CLIENT_SECRET"), environment: environment)
            : SignInCredential.read(
                principal: (signIn.user, "--user", "SN_USER"),
                secret: (signIn.passwordFile, "--password-file", "SN_PASSWORD"), environment: environment)
        {
        case .success(let value): credential = value
        case .failure(let problem): return .failure(problem)
        }
        let authentication: Authentication =
            oauth
            ? .oauth2(
                OAuth2Credentials(
                    clientID: credential.principal, clientSecret: credential.secret, grant: .clientCredentials))
            : .basic(username: credential.principal, password: credential.secret)
        let account = InstanceAccount(
            instance: url, principal: (oauth ? "OAuth client " : "user ") + credential.principal,
            setting: credential.setting)
        return .success(
            DictionaryConnection(
                service: NowTableService(
                    configuration: NowServiceConfiguration(instanceURL: url, authentication: authentication)),
                password: credential.secret, account: account, oauth: oauth, auth: credential.starter))
    }
}

/// Who `discover` or `init` signs in as and with which secret, and where each came from: an option
/// (`--user`, a secret file) or the environment.
struct SignInCredential {
    /// The user or OAuth client id.
    var principal: String
    /// The password or client secret, never shown.
    var secret: String
    /// Where they were set, for a refusal's "check …" (`--user and SN_PASSWORD`).
    var setting: String
    /// The principal when an option gave it; `nil` when it came from the environment.
    var principalOption: String?
    /// The secret file's absolute path when an option named one.
    var secretFile: String?

    /// The credential from the options, each half falling back to its environment variable.
    ///
    /// - Parameters:
    ///   - principal: The option's value, its name and the variable (`--user`, `SN_USER`).
    ///   - secret: The secret file option's value, its name and the variable.
    static func read(
        principal: (value: String?, option: String, variable: String),
        secret: (file: String?, option: String, variable: String), environment: [String: String]
    ) -> Result<SignInCredential, NowETLCommand.DictionaryConnectionProblem> {
        typealias Problem = NowETLCommand.DictionaryConnectionProblem
        guard let name = principal.value ?? environment[principal.variable], !name.isEmpty else {
            return .failure(
                Problem(description: "\(secret.option) needs \(principal.option) (or \(principal.variable))"))
        }
        let text: String
        var absolute: String?
        if let file = secret.file {
            let path = file.hasPrefix("/") ? file : FileManager.default.currentDirectoryPath + "/" + file
            do {
                text = Secret.text(ofFile: try FileContents.bytes(ofFile: path, limit: Secret.maximumFileSize))
            } catch {
                return .failure(
                    Problem(description: NowETLError.text(of: error, after: "cannot read \(secret.option) '\(file)'")))
            }
            guard !text.isEmpty else { return .failure(Problem(description: "\(secret.option) '\(file)' is empty")) }
            absolute = path
        } else {
            guard let value = environment[secret.variable], !value.isEmpty else {
                return .failure(
                    Problem(description: "\(principal.option) needs \(secret.option) (or \(secret.variable))"))
            }
            text = value
        }
        let setting =
            "\(principal.value == nil ? principal.variable : principal.option) and "
            + (secret.file == nil ? secret.variable : secret.option)
        return .success(
            SignInCredential(
                principal: name, secret: text, setting: setting, principalOption: principal.value, secretFile: absolute)
        )
    }

    /// What the starter pipeline names as given (the rest it names as the `${VAR}` it came from).
    var starter: StarterPipeline.Auth { StarterPipeline.Auth(principal: principalOption, secretFile: secretFile) }
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

    /// The credentials `init` was given on its command line, which the pipeline names as given; what it
    /// took from the environment is named as `${VAR}`.
    struct Auth: Equatable {
        /// The user or OAuth client id given with `--user` or `--client-id`.
        var principal: String?
        /// The absolute path of `--password-file` or `--client-secret-file`.
        var secretFile: String?
    }

    /// The pipeline for `tables` of `instance`, signing in with OAuth client credentials (`oauth`) or basic
    /// authentication as `auth` says, the other one commented beside it.
    static func render(
        instance: String, oauth: Bool = false, auth: Auth = Auth(), tables: [String], entries: [String],
        outputDirectory: String
    )
        -> String
    {
        let (basicAuth, clientAuth) = oauth ? (Auth(), auth) : (auth, Auth())
        // A given value is written as it is, `$` doubled so that no `${…}` is read into it.
        func literal(_ text: String) -> String {
            DiscoveredTableYAML.scalar(text.replacingOccurrences(of: "$", with: "$$"))
        }
        func secret(_ key: String, _ file: String?, variable: String) -> String {
            file.map { "\(key)_file: \(literal($0))" } ?? "\(key): \"${\(variable)}\""
        }
        let basic =
            "basic: { user: \(basicAuth.principal.map(literal) ?? "\"${SN_USER}\""), "
            + secret("password", basicAuth.secretFile, variable: "SN_PASSWORD") + " }"
        let client =
            "oauth: { client_id: \(clientAuth.principal.map(literal) ?? "\"${SN_CLIENT_ID}\""), "
            + secret("client_secret", clientAuth.secretFile, variable: "SN_CLIENT_SECRET")
            + ", grant: client_credentials }"
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

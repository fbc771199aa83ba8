import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// `nowetl schema` and the pipeline-file reference: held to the decoding types, to the committed docs,
/// and to an independent validator (Python's `jsonschema` over PyYAML's reading of each file).
@Suite(.timeLimit(.minutes(3)))
struct PipelineSchemaTests {
    /// The committed reference and schema files.
    static let referenceFile = RepositoryPipelines.root.appendingPathComponent("docs/reference/pipeline.md")
    static let schemaFile = RepositoryPipelines.root.appendingPathComponent("docs/reference/pipeline.schema.json")

    @Test("docs/reference/pipeline.md is what nowetl schema --format markdown prints")
    func referenceIsCurrent() throws {
        let committed = try String(contentsOf: Self.referenceFile, encoding: .utf8)
        #expect(
            committed == PipelineSchema.markdownReference(),
            "docs/reference/pipeline.md is stale: swift run nowetl schema --format markdown > docs/reference/pipeline.md"
        )
    }

    @Test("docs/reference/pipeline.schema.json is what nowetl schema prints")
    func schemaFileIsCurrent() throws {
        let committed = try String(contentsOf: Self.schemaFile, encoding: .utf8)
        #expect(
            committed == PipelineSchema.jsonSchema(),
            "docs/reference/pipeline.schema.json is stale: swift run nowetl schema > docs/reference/pipeline.schema.json"
        )
    }

    /// The schema's mappings by the path a decode gives them (`tables[].columns[]`), with their keys,
    /// and the paths of mappings whose keys are the file's own (`coalesce:`), which have no fixed keys.
    static func schemaKeys() -> (keys: [String: Set<String>], freeForm: Set<String>) {
        var found: [String: Set<String>] = [:]
        var freeForm: Set<String> = []
        func walk(_ mapping: PipelineSchema.Mapping, at path: String) {
            found[path, default: []].formUnion(mapping.keys.map(\.name))
            for key in mapping.keys {
                let keyPath = path.isEmpty ? key.name : path + "." + key.name
                func visit(_ value: PipelineSchema.Value, at path: String) {
                    switch value {
                    case .mapping(let nested): walk(nested, at: path)
                    case .list(let item, _): visit(item, at: path + "[]")
                    case .either(let forms): for form in forms { visit(form, at: path) }
                    case .dictionary: freeForm.insert(path)
                    case .string, .integer, .number, .boolean, .choice, .octalMode: break
                    }
                }
                visit(key.value, at: keyPath)
            }
        }
        walk(PipelineSchema.pipeline, at: "")
        return (found, freeForm)
    }

    /// Pipelines that together open every mapping a pipeline file can have.
    static let coveringPipelines = [
        """
        version: 1
        source:
          instance: https://source.example.com
          auth: { basic: { user: etl, password_file: secret.txt } }
          concurrency: 2
          page_size: 100
          max_response_mb: 64
          timeout_seconds: 60
          retry: { attempts: 3, max_wait_seconds: 1, total_seconds: 10 }
          slow_request_seconds: 5
          allow_insecure_http: false
          tls: { ca_file: ca.pem, client_cert: client.pem, client_key: client.key }
          proxy: http://proxy.example:3128
          compressed_transfer: always
        output_dir: out
        file_mode: "0640"
        publish: { mode: directories, keep: 3 }
        order: [sys_user, incident]
        tables:
          - table: incident
            filter: active=true
            fields: [number, sys_id, opened_at]
            display_value: all
            display_columns: true
            choice_labels: false
            columns:
              - { name: number, path: number.value, type: string }
              - { name: sys_id, path: sys_id.value }
            reject: { mode: skip, max: 5, invalid_utf8: replace }
            mode: incremental
            cursor: sys_updated_on
            lag_seconds: 10
            deletes: true
            start: "2024-01-01 00:00:00"
            attachments: { content_types: [application/pdf], max_bytes: 1000 }
            journal: [work_notes]
            audit: true
          - table: sys_user
        outputs:
          - csv: { path: "{table}.csv.gz", delimiter: ";", header: true, "null": "", line_ending: lf, bom: false,
                   formula_guard: true, datetime_format: iso8601, gzip: true, level: 6, split: { rows: 100 } }
          - json: { path: "{table}.jsonl.gz", array: false, decimals_as_numbers: false, compression: fast,
                    split: { bytes: 100000 } }
          - xml: { path: "{table}.xml", format: records, datetime_format: iso8601, split: { rows: 100 } }
          - sqlite: { path: report.db, table_name: "sn_{table}", mode: merge, on_type_change: fail, prune: weekly,
                      deletes: soft }
          - postgres: { url: "postgres://etl@db.example/reports", password: "${PW}", schema: sn, mode: merge,
                        table_name: "sn_{table}", on_type_change: fail, statement_timeout_seconds: 60,
                        lock_timeout_seconds: 5, prune: never, deletes: hard }
          - mysql: { url: "mysql://etl@db.example/reports", password_file: secret.txt, mode: merge,
                     table_name: "sn_{table}", on_type_change: recreate, statement_timeout_seconds: 60,
                     lock_timeout_seconds: 5, prune: every_run, deletes: hard }
          - instance:
              instance: https://target.example.com
              auth: { oauth: { client_id: etl, client_secret: "${PW}", grant: password, user: u, password: "${PW}" } }
              timeout_seconds: 60
              retry: { attempts: 3 }
              slow_request_seconds: 5
              allow_insecure_http: false
              tls: { ca_file: ca.pem }
              proxy: http://proxy.example:3128
              compressed_transfer: never
              mode: upsert
              concurrency: 2
              rate_per_second: 5
              coalesce: { sys_user: [user_name] }
              on_match: update
              on_missing: insert
              on_unresolved: keep
              deletes: propagate
              on_schema_mismatch: fail
              side_effects: refuse
        """,
        """
        version: 1
        source:
          instance: https://source.example.com
          auth: { oauth: { client_id: etl, client_secret_file: secret.txt, grant: client_credentials } }
        tables:
          - table: incident
            attachments: true
        outputs:
          - csv: { path: "{table}-{run_id}.csv", keep_runs: 3 }
          - instance:
              instance: https://target.example.com
              auth: { basic: { user: etl, password: "${PW}" } }
        """,
    ]

    /// Loads `text` from a scratch directory holding the files it names, returning the keys the
    /// decoding types know per mapping, paths normalised to `tables[].columns[]`.
    static func decodedKeys(_ text: String) throws -> [String: Set<String>] {
        try withScratchDirectory { (directory: URL) in
            for (name, content) in [
                ("secret.txt", "secret\n"), ("ca.pem", ConfigTLSTests.pem), ("client.pem", ConfigTLSTests.pem),
                ("client.key", "-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n"),
            ] {
                let url = directory.appendingPathComponent(name)
                try content.write(to: url, atomically: true, encoding: .utf8)
                _ = chmod(url.path, 0o600)
            }
            let keys = try PipelineLoader.knownKeys(
                text: text, file: directory.appendingPathComponent("pipeline.yaml").path, environment: ["PW": "pw"])
            var found: [String: Set<String>] = [:]
            for (path, names) in keys where !names.isEmpty {
                let normalised = path.replacingOccurrences(of: #"\[[0-9]+\]"#, with: "[]", options: .regularExpression)
                found[normalised, default: []].formUnion(names)
            }
            return found
        }
    }

    @Test("every key the decoding types know is in the reference, and every key there is one they know")
    func schemaMatchesTheDecodingTypes() throws {
        var decoded: [String: Set<String>] = [:]
        for text in Self.coveringPipelines {
            decoded.merge(try Self.decodedKeys(text)) { $0.union($1) }
        }
        let (schema, freeForm) = Self.schemaKeys()
        for (path, keys) in decoded.sorted(by: { $0.key < $1.key }) where !freeForm.contains(path) {
            let described = schema[path] ?? []
            let place = path.isEmpty ? "top level" : path
            let missing = keys.subtracting(described).sorted()
            let unknown = described.subtracting(keys).sorted()
            #expect(missing.isEmpty, "\(place): keys missing from PipelineSchema: \(missing)")
            #expect(unknown.isEmpty, "\(place): PipelineSchema lists keys the decoding types do not know: \(unknown)")
        }
        // Every mapping of the schema was opened by the pipelines above, so none escaped the comparison.
        let unvisited = Set(schema.keys).subtracting(decoded.keys)
        #expect(unvisited.isEmpty, "coveringPipelines open none of \(unvisited.sorted()); add them")
    }

    /// Runs Python's `jsonschema` (Draft 7) over PyYAML's reading of each file and prints, per file, `ok`
    /// or the first error's path and message. Timestamps stay text, as nowetl reads them.
    static let validator = """
        import json, sys, yaml, jsonschema
        class Loader(yaml.SafeLoader):
            pass
        Loader.yaml_implicit_resolvers = {
            first: [(tag, regexp) for tag, regexp in resolvers if tag != 'tag:yaml.org,2002:timestamp']
            for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
        with open(sys.argv[1], encoding='utf-8') as file:
            schema = json.load(file)
        jsonschema.Draft7Validator.check_schema(schema)
        validator = jsonschema.Draft7Validator(schema)
        for path in sys.argv[2:]:
            with open(path, encoding='utf-8') as file:
                document = yaml.load(file, Loader=Loader)
            errors = sorted(validator.iter_errors(document), key=lambda e: list(map(str, e.absolute_path)))
            if errors:
                where = '.'.join(map(str, errors[0].absolute_path))
                print(path, 'error', where, errors[0].message)
            else:
                print(path, 'ok')
        """

    /// The validator's verdict per file.
    static func validate(_ files: [String], in directory: URL) async throws -> [String: String] {
        let schema = directory.appendingPathComponent("pipeline.schema.json")
        try PipelineSchema.jsonSchema().write(to: schema, atomically: true, encoding: .utf8)
        let result = try await Subprocess.run(
            "/usr/bin/python3", ["-c", Self.validator, schema.path] + files, directory: directory)
        try #require(result.status == 0, "python3 jsonschema failed: \(result.stderrText)")
        var verdicts: [String: String] = [:]
        for line in result.stdoutText.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2 { verdicts[String(parts[0])] = String(parts[1]) }
        }
        return verdicts
    }

    @Test("every shipped pipeline and the covering pipelines validate against the schema with Python's jsonschema")
    func shippedPipelinesValidate() async throws {
        try await withScratchDirectory { (directory: URL) in
            var files = RepositoryPipelines.files
            for (index, text) in Self.coveringPipelines.enumerated() {
                let file = directory.appendingPathComponent("covering-\(index).yaml")
                try text.write(to: file, atomically: true, encoding: .utf8)
                files.append(file.path)
            }
            #expect(files.count > 5)
            let verdicts = try await Self.validate(files, in: directory)
            for file in files {
                #expect(verdicts[file] == "ok", "\(file): \(verdicts[file] ?? "no verdict")")
            }
        }
    }

    @Test("the schema rejects a misspelt key, a wrong type and a value out of range, and takes ${VAR} for a number")
    func schemaRejectsMistakes() async throws {
        try await withScratchDirectory { (directory: URL) in
            let base = try String(contentsOfFile: RepositoryPipelines.path("demo.yaml"), encoding: .utf8)
            #expect(base.contains("concurrency: 4") && base.contains("page_size: 500"), "the cases below edit these")
            let cases: [(name: String, text: String, verdict: String)] = [
                (
                    "misspelt", base.replacingOccurrences(of: "  - table: incident", with: "  - tabel: incident"),
                    "tabel"
                ),
                ("type", base + "\nfile_mode: [1]\n", "file_mode"),
                ("range", base.replacingOccurrences(of: "concurrency: 4", with: "concurrency: 99"), "concurrency"),
                ("output", base + "\n  - parquet: { path: x }\n", "parquet"),
                ("variable", base.replacingOccurrences(of: "page_size: 500", with: "page_size: ${SIZE:-10}"), "ok"),
            ]
            var files: [String] = []
            for item in cases {
                let file = directory.appendingPathComponent("\(item.name).yaml")
                try item.text.write(to: file, atomically: true, encoding: .utf8)
                files.append(file.path)
            }
            let verdicts = try await Self.validate(files, in: directory)
            for (item, file) in zip(cases, files) {
                let verdict = verdicts[file] ?? "no verdict"
                if item.verdict == "ok" {
                    #expect(verdict == "ok", "\(item.name): \(verdict)")
                } else {
                    #expect(verdict.hasPrefix("error") && verdict.contains(item.verdict), "\(item.name): \(verdict)")
                }
            }
        }
    }

    @Test("nowetl schema prints the schema and the reference; a wrong --format is a usage error")
    func command() async throws {
        try await withScratchDirectory { (directory: URL) in
            let json = try await NowETLProcess.run(["schema"], in: directory)
            #expect(json.status == 0)
            #expect(json.stdoutText == PipelineSchema.jsonSchema())
            let markdown = try await NowETLProcess.run(["schema", "--format", "markdown"], in: directory)
            #expect(markdown.status == 0)
            #expect(markdown.stdoutText == PipelineSchema.markdownReference())
            let wrong = try await NowETLProcess.run(["schema", "--format", "yaml"], in: directory)
            #expect(wrong.status == 64)
        }
    }
}

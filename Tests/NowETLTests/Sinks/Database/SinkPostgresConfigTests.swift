import Foundation
import Testing

@testable import NowETL

/// The `postgres:` output: what it decodes to, its password sources (redacted from the log), and the
/// exact `file:line:column: error: message` of its mistakes.
@Suite(.timeLimit(.minutes(5))) struct SinkPostgresConfigTests {
    @Test func everyKeyDecodesAndThePasswordsAreSecrets() throws {
        try ConfigText.withSecretFile("from-the-file\n") { file in
            let pipeline = try ConfigText.load(
                ConfigText.full + """
                      - postgres: { url: "${PG_URL}", schema: servicenow, mode: replace, table_name: "sn_{table}", on_type_change: recreate, password_file: \(file) }
                      - postgres: { url: "postgres://etl:${PG_PASSWORD}@db:6432/other?sslmode=require", statement_timeout_seconds: 0, lock_timeout_seconds: 15 }

                    """,
                environment: [
                    "PG_URL": "postgres://etl@db.example.com/reporting?sslmode=require", "PG_PASSWORD": "s3cr3t",
                ])
            guard case .postgres(let first) = pipeline.outputs[0], case .postgres(let second) = pipeline.outputs[1]
            else {
                Issue.record("not PostgreSQL outputs: \(pipeline.outputs)")
                return
            }
            #expect(
                first.options
                    == PostgresSinkOptions(
                        url: "postgres://etl@db.example.com/reporting?sslmode=require",
                        password: Secret("from-the-file"),
                        schema: "servicenow", mode: .replace, tableName: "sn_{table}", onTypeChange: .recreate))
            #expect(first.options.statementTimeout == 3600 && first.options.lockTimeout == 300)
            #expect(
                second.options.schema == "public" && second.options.mode == .merge && second.options.password == nil)
            #expect(second.options.statementTimeout == 0 && second.options.lockTimeout == 15)
            let settings = try second.options.settings()
            #expect(settings.statementTimeout == 0 && settings.lockTimeout == 15)
            #expect(pipeline.outputs.filter(\.isDatabase).count == 2)
            #expect(pipeline.outputs[0].file.path.text != pipeline.outputs[1].file.path.text)
            let spec = pipeline.outputs[0].fileSinkSpec(outputDirectory: "/tmp/out")
            #expect(spec.isDatabase && spec.makeSink() is DatabaseSink)
            #expect(pipeline.secretValues.contains("from-the-file") && pipeline.secretValues.contains("s3cr3t"))
            #expect(pipeline.secretValues.contains("hunter2"))
        }
    }

    @Test(arguments: [
        ConfigErrorCase(
            "unknown key", ConfigText.full + "  - postgres: { url: \"postgres://u@h/d\", shema: x }\n",
            "p.yaml:8:42: error: unknown key 'shema' in outputs[0].postgres; did you mean 'schema'?"),
        ConfigErrorCase(
            "no url", ConfigText.full + "  - postgres: { schema: x }\n",
            "p.yaml:8:15: error: missing key 'url' in outputs[0].postgres"),
        ConfigErrorCase(
            "a mysql url", ConfigText.full + "  - postgres: { url: \"mysql://u@h/d\" }\n",
            "p.yaml:8:22: error: outputs[0].postgres.url: the PostgreSQL URL has the scheme \"mysql\"; expected "
                + "postgres:// or postgresql://"),
        ConfigErrorCase(
            "a bad sslmode", ConfigText.full + "  - postgres: { url: \"postgres://u@h/d?sslmode=always\" }\n",
            "p.yaml:8:22: error: outputs[0].postgres.url: the PostgreSQL URL has sslmode=always; expected one of "
                + "disable, allow, prefer, require, verify-ca, verify-full"),
        ConfigErrorCase(
            "a negative statement timeout",
            ConfigText.full + "  - postgres: { url: \"postgres://u@h/d\", statement_timeout_seconds: -1 }\n",
            "p.yaml:8:69: error: outputs[0].postgres.statement_timeout_seconds must be between 0 and 604800, got -1"),
        ConfigErrorCase(
            "a misspelt lock timeout",
            ConfigText.full + "  - postgres: { url: \"postgres://u@h/d\", lock_timeout: 5 }\n",
            "p.yaml:8:42: error: unknown key 'lock_timeout' in outputs[0].postgres; expected one of url, schema, mode, "
                + "password, password_file, table_name, on_type_change, statement_timeout_seconds, lock_timeout_seconds, prune, deletes"
        ),
        ConfigErrorCase(
            "a bad schema", ConfigText.full + "  - postgres: { url: \"postgres://u@h/d\", schema: \"my-schema\" }\n",
            "p.yaml:8:53: error: schema 'my-schema' in outputs[0].postgres.schema is not valid: use letters, digits "
                + "and underscores, not starting with a digit"),
        ConfigErrorCase(
            "a schema PostgreSQL would cut",
            ConfigText.full
                + "  - postgres: { url: \"postgres://u@h/d\", schema: \(String(repeating: "s", count: 64)) }\n",
            "p.yaml:8:50: error: schema '\(String(repeating: "s", count: 64))' in outputs[0].postgres.schema is 64 bytes "
                + "long; PostgreSQL keeps 63"),
        ConfigErrorCase(
            "replace for an incremental table",
            ConfigText.incremental + "  - postgres: { url: \"postgres://u@h/d\", mode: replace }\n",
            "p.yaml:9:48: error: outputs[0].postgres.mode is replace, but table 'incident' (tables[0]) is "
                + "incremental: replacing the database table with one run's changes would lose the rest; use mode: "
                + "merge (or append)"),
    ]) func mistakesArePositionedAndWorded(_ testCase: ConfigErrorCase) {
        testCase.check()
    }
}

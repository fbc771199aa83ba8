import Foundation
import NowData
import Testing

@testable import NowETL

/// The `instance:` output: the keys it shares with `source:` (one ``InstanceConnection``), its own
/// keys, the target's secrets in the pipeline's, and the exact `file:line:column: error: message` of
/// its mistakes (exit 78).
@Suite(.timeLimit(.minutes(5))) struct SinkInstanceConfigTests {
    @Test func everyKeyDecodesTheSourcesWayAndTheTargetsSecretsAreRedacted() throws {
        try ConfigText.withSecretFile("target-from-file\n") { file in
            let pipeline = try ConfigText.load(
                ConfigText.head + """
                    tables:
                      - table: sys_user
                      - table: incident
                    outputs:
                      - instance:
                          instance: ${TARGET_INSTANCE}
                          auth: { basic: { user: "${TARGET_USER}", password_file: \(file) } }
                          mode: insert_only
                          concurrency: 8
                          rate_per_second: 2.5
                          timeout_seconds: 30
                          retry: { attempts: 7, max_wait_seconds: 2, total_seconds: 60 }
                          slow_request_seconds: 5
                          proxy: http://proxy-user:pr0xy-pass@proxy.example:3128
                      - instance: { instance: "http://127.0.0.1:8080", auth: { basic: { user: admin, password: adm1n } } }

                    """,
                environment: ["TARGET_INSTANCE": "https://target.example.com/", "TARGET_USER": "migrator"])
            guard case .instance(let first) = pipeline.outputs[0], case .instance(let second) = pipeline.outputs[1]
            else {
                Issue.record("not instance outputs: \(pipeline.outputs)")
                return
            }
            #expect(first.connection.instance.absoluteString == "https://target.example.com")
            #expect(first.connection.auth == .basic(user: "migrator", password: Secret("target-from-file")))
            #expect(first.options.mode == .insertOnly && first.options.concurrency == 8)
            #expect(first.options.ratePerSecond == 2.5)
            #expect(first.connection.timeoutSeconds == 30 && first.connection.slowRequestSeconds == 5)
            #expect(first.connection.retry.attempts == 7 && first.connection.retry.maximumWaitSeconds == 2)
            #expect(first.connection.proxy != nil)
            // The defaults: upsert, 4 in flight, no ceiling; plain http to loopback is allowed, as for the source.
            #expect(
                second.options.mode == .upsert && second.options.concurrency == 4 && second.options.ratePerSecond == nil
            )
            #expect(second.connection.instance.absoluteString == "http://127.0.0.1:8080")
            // One type for "how to reach an instance": the source decodes into the same one.
            #expect(pipeline.source.connection.instance.absoluteString == "https://acme.service-now.com")
            // The public way to reach the target (the reconcile command's).
            let service = first.serviceConfiguration()
            #expect(service.instanceURL.absoluteString == "https://target.example.com")
            #expect(service.maximumConnectionsPerHost == 8)
            #expect(service.requestTimeout == 30 && service.retryPolicy.maximumAttempts == 7)
            #expect(first.makeTableService().configuration.instanceURL == service.instanceURL)
            // No file of the run: two tables need no {table}, and the two targets are told apart.
            #expect(pipeline.outputs.allSatisfy { $0.isInstance && !$0.isDatabase })
            #expect(pipeline.outputs[0].file.path.text != pipeline.outputs[1].file.path.text)
            let spec = pipeline.outputs[0].fileSinkSpec(outputDirectory: "/tmp/out")
            #expect(spec.isInstance && !spec.isDatabase && spec.makeSink() is InstanceSink)
            guard case .instance(let options) = spec.format else { return }
            #expect(options.outputDirectory == "/tmp/out")
            for secret in ["target-from-file", "pr0xy-pass", "adm1n", "hunter2"] {
                #expect(pipeline.secretValues.contains(secret), "\(secret)")
            }
            #expect(!"\(first.connection.auth)".contains("target-from-file"))
        }
    }

    @Test(arguments: [
        ConfigErrorCase(
            "unknown key",
            ConfigText.full
                + "  - instance: { instance: \"http://127.0.0.1:1\", auth: { basic: { user: a, password: b } }, concurency: 2 }\n",
            "p.yaml:8:92: error: unknown key 'concurency' in outputs[0].instance; did you mean 'concurrency'?"),
        ConfigErrorCase(
            "concurrency 0",
            ConfigText.full
                + "  - instance: { instance: \"http://127.0.0.1:1\", auth: { basic: { user: a, password: b } }, concurrency: 0 }\n",
            "p.yaml:8:105: error: outputs[0].instance.concurrency must be between 1 and 32, got 0"),
        ConfigErrorCase(
            "concurrency 33",
            ConfigText.full
                + "  - instance: { instance: \"http://127.0.0.1:1\", auth: { basic: { user: a, password: b } }, concurrency: 33 }\n",
            "p.yaml:8:105: error: outputs[0].instance.concurrency must be between 1 and 32, got 33"),
        ConfigErrorCase(
            "rate 0",
            ConfigText.full
                + "  - instance: { instance: \"http://127.0.0.1:1\", auth: { basic: { user: a, password: b } }, rate_per_second: 0 }\n",
            "p.yaml:8:109: error: outputs[0].instance.rate_per_second must be a number of requests per second above 0"),
        ConfigErrorCase(
            "plain http to another host",
            ConfigText.full
                + "  - instance: { instance: \"http://target.example.com\", auth: { basic: { user: a, password: b } } }\n",
            "p.yaml:8:27: error: outputs[0].instance.instance uses plain http, which would send credentials "
                + "unencrypted; use https, or set outputs[0].instance.allow_insecure_http: true"),
        ConfigErrorCase(
            "credentials in the URL",
            ConfigText.full
                + "  - instance: { instance: \"https://u:secret@target.example.com\", auth: { basic: { user: a, password: b } } }\n",
            "p.yaml:8:27: error: outputs[0].instance.instance must not contain a user name or password; put "
                + "credentials under outputs[0].instance.auth"),
        ConfigErrorCase(
            "no auth", ConfigText.full + "  - instance: { instance: \"https://target.example.com\" }\n",
            "p.yaml:8:15: error: missing key 'auth' in outputs[0].instance"),
        ConfigErrorCase(
            "a bad mode",
            ConfigText.full
                + "  - instance: { instance: \"https://t.example.com\", auth: { basic: { user: a, password: b } }, mode: merge }\n",
            "p.yaml:8:101: error: expected one of upsert, insert_only for outputs[0].instance.mode, got \"merge\""),
        ConfigErrorCase(
            "coalesce names a table the pipeline does not migrate",
            ConfigText.full
                + "  - instance: { instance: \"https://t.example.com\", auth: { basic: { user: a, password: b } }, coalesce: { incidnt: [number] } }\n",
            "p.yaml:8:107: error: outputs[0].instance.coalesce.incidnt names 'incidnt', which is not a table of the "
                + "pipeline (its records are what is matched; add it to tables:); did you mean 'incident'?"),
        ConfigErrorCase(
            "coalesce without key fields",
            ConfigText.full
                + "  - instance: { instance: \"https://t.example.com\", auth: { basic: { user: a, password: b } }, coalesce: { incident: [] } }\n",
            "p.yaml:8:117: error: outputs[0].instance.coalesce.incident must list the fields incident records are "
                + "matched on (sys_user: [user_name])"),
        ConfigErrorCase(
            "coalesce with a dot-walked key",
            ConfigText.full
                + "  - instance: { instance: \"https://t.example.com\", auth: { basic: { user: a, password: b } }, coalesce: { incident: [caller_id.name] } }\n",
            "p.yaml:8:118: error: 'caller_id.name' in outputs[0].instance.coalesce.incident is not one field name: list "
                + "distinct lower-case field names of incident (not dot-walked)"),
        ConfigErrorCase(
            "a bad on_missing",
            ConfigText.full
                + "  - instance: { instance: \"https://t.example.com\", auth: { basic: { user: a, password: b } }, on_missing: create }\n",
            "p.yaml:8:107: error: expected one of insert, skip, fail for outputs[0].instance.on_missing, got \"create\""
        ),
        ConfigErrorCase(
            "a bad deletes",
            ConfigText.full
                + "  - instance: { instance: \"https://t.example.com\", auth: { basic: { user: a, password: b } }, deletes: true }\n",
            "p.yaml:8:104: error: expected one of propagate, ignore for outputs[0].instance.deletes, got \"true\""),
    ]) func mistakesArePositionedAndWorded(_ testCase: ConfigErrorCase) {
        testCase.check(hidden: ["secret@"])
    }

    @Test func aMissingSecretFileIsReportedAsSuchNotAsAnUnknownKeyOfTheOutput() {
        let yaml =
            ConfigText.full
            + "  - instance: { instance: \"https://t.example.com\", auth: { basic: { user: a, password_file: "
            + "/nonexistent/target_password } }, concurrency: 2, mode: upsert }\n"
        do {
            _ = try ConfigText.load(yaml)
            Issue.record("loaded without an error")
        } catch {
            #expect(error.description.contains("named by outputs[0].instance.auth.basic.password_file"), "\(error)")
            #expect(!error.description.contains("unknown key"))
            #expect(error.exitCode == 78)
        }
    }

    @Test func aTableWithDeletesMigratesWhenTheOutputSaysWhatDeletionsDo() throws {
        for deletes in ["propagate", "ignore"] {
            let configuration = try ConfigText.load(
                ConfigText.head + "tables:\n  - table: incident\n    mode: incremental\n    deletes: true\n"
                    + "outputs:\n  - instance: { instance: \"https://t.example.com\", auth: { basic: { user: a, password: b } }, "
                    + "deletes: \(deletes), coalesce: { incident: [number, company] }, on_match: keep, on_missing: skip, "
                    + "on_unresolved: clear }\n")
            guard case .instance(let output)? = configuration.outputs.first else {
                Issue.record("no instance output")
                continue
            }
            #expect(output.options.matching.deletions?.rawValue == deletes)
            #expect(
                output.options.matching
                    == InstanceMatching(
                        coalesce: ["incident": ["number", "company"]], onMatch: .keep, onMissing: .skip,
                        onUnresolved: .clear, deletions: output.options.matching.deletions))
        }
    }

    @Test func aTableWithDeletesCannotMigrate() {
        let yaml =
            ConfigText.head + "tables:\n  - table: incident\n    mode: incremental\n    deletes: true\n"
            + "outputs:\n  - instance: { instance: \"https://t.example.com\", auth: { basic: { user: a, password: b } } }\n"
        do {
            _ = try ConfigText.load(yaml)
            Issue.record("loaded without an error")
        } catch {
            #expect(
                error.description.contains("writes into another instance, which does not take the deletion records"))
            #expect(error.exitCode == 78)
        }
    }
}

import Foundation
import NowETL
import NowSimTesting
import Testing

/// pipelines/k8s: the Indexed Job of the shards and the Job of the merge have the fields that make them
/// work (kubectl is not needed: the YAML is parsed with python3's yaml module and its fields checked),
/// and the pipeline they mount validates.
@Suite(.timeLimit(.minutes(2))) struct ShardKubernetesExampleTests {
    static let directory = RepositoryPipelines.directory.appendingPathComponent("k8s")

    /// Every document of `file` as JSON objects, through python3's yaml parser.
    static func documents(_ file: String) async throws -> [[String: Any]] {
        let script = """
            import json, sys, yaml
            print(json.dumps(list(yaml.safe_load_all(open(sys.argv[1])))))
            """
        let result = try await Subprocess.run(
            "/usr/bin/python3", ["-c", script, directory.appendingPathComponent(file).path], directory: directory,
            environment: [:], timeout: 60)
        try #require(result.status == 0, "python3 cannot parse \(file): \(result.stderrText)")
        return try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [[String: Any]])
    }

    static func job(_ documents: [[String: Any]]) throws -> (spec: [String: Any], container: [String: Any]) {
        let job = try #require(documents.first { $0["kind"] as? String == "Job" })
        #expect(job["apiVersion"] as? String == "batch/v1")
        let spec = try #require(job["spec"] as? [String: Any])
        let pod = try #require((spec["template"] as? [String: Any])?["spec"] as? [String: Any])
        #expect(pod["restartPolicy"] as? String == "Never")
        let container = try #require((pod["containers"] as? [[String: Any]])?.first)
        // The shared volume: the PVC mounted where the pipeline's output_dir lives.
        let volumes = pod["volumes"] as? [[String: Any]] ?? []
        let claim = volumes.compactMap { ($0["persistentVolumeClaim"] as? [String: Any])?["claimName"] as? String }
        #expect(claim == ["nowetl-exports"])
        let mounts = (container["volumeMounts"] as? [[String: Any]] ?? []).compactMap { $0["mountPath"] as? String }
        #expect(mounts.contains("/exports"))
        return (spec, container)
    }

    @Test func theShardsAreAnIndexedJobWhoseIndexIsTheShard() async throws {
        let documents = try await Self.documents("nightly-shards.yaml")
        let claim = try #require(documents.first { $0["kind"] as? String == "PersistentVolumeClaim" })
        #expect(((claim["spec"] as? [String: Any])?["accessModes"] as? [String]) == ["ReadWriteMany"])
        let (spec, container) = try Self.job(documents)
        #expect(spec["completionMode"] as? String == "Indexed")
        let completions = try #require(spec["completions"] as? Int)
        let parallelism = try #require(spec["parallelism"] as? Int)
        #expect(completions >= 2 && (1...completions).contains(parallelism))
        let arguments = try #require(container["args"] as? [String])
        #expect(container["command"] as? [String] == ["nowetl"])
        #expect(arguments.first == "run")
        let shard = try #require(arguments.firstIndex(of: "--shard").map { arguments[$0 + 1] })
        #expect(shard == "$(JOB_COMPLETION_INDEX)/\(completions)", "--shard must be the pod's index over completions")
        // Every index Kubernetes hands out is a shard nowetl accepts.
        for index in 0..<completions {
            let text = shard.replacingOccurrences(of: "$(JOB_COMPLETION_INDEX)", with: String(index))
            #expect(throws: Never.self) { try NowETLArguments.parse(["run", "p.yaml", "--shard", text]) }
        }
        let variables = container["env"] as? [[String: Any]] ?? []
        let index = try #require(variables.first { $0["name"] as? String == "JOB_COMPLETION_INDEX" })
        let field = ((index["valueFrom"] as? [String: Any])?["fieldRef"] as? [String: Any])?["fieldPath"] as? String
        #expect(field == "metadata.annotations['batch.kubernetes.io/job-completion-index']")
        #expect(arguments.firstIndex(of: "--run-key").map { arguments[$0 + 1] } == "$(NOWETL_RUN_KEY)")
        #expect(try Self.runKey(container) != nil)
    }

    /// The value of the container's `NOWETL_RUN_KEY`.
    static func runKey(_ container: [String: Any]) throws -> String? {
        let variables = container["env"] as? [[String: Any]] ?? []
        return variables.first { $0["name"] as? String == "NOWETL_RUN_KEY" }?["value"] as? String
    }

    @Test func theMergeJobMergesTheSamePipelineOnce() async throws {
        let shards = try Self.job(try await Self.documents("nightly-shards.yaml"))
        let (spec, container) = try Self.job(try await Self.documents("nightly-merge.yaml"))
        #expect(spec["completionMode"] == nil)
        #expect(spec["completions"] as? Int == 1 && spec["parallelism"] as? Int == 1)
        let arguments = try #require(container["args"] as? [String])
        #expect(arguments.prefix(2) == ["merge", (shards.container["args"] as? [String])?[1] ?? ""])
        // The merge takes the shards' run key.
        let key = try #require(try Self.runKey(container))
        #expect(key == (try Self.runKey(shards.container)))
        #expect(arguments.firstIndex(of: "--run-key").map { arguments[$0 + 1] } == "$(NOWETL_RUN_KEY)")
        let expanded = arguments.map { $0 == "$(NOWETL_RUN_KEY)" ? key : $0 }
        #expect(throws: Never.self) { try NowETLArguments.parse(expanded) }
    }

    @Test func thePipelineTheJobsMountValidates() async throws {
        let documents = try await Self.documents("nightly-shards.yaml")
        let map = try #require(documents.first { $0["kind"] as? String == "ConfigMap" })
        let pipeline = try #require((map["data"] as? [String: String])?["incident-nightly.yaml"])
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("nowetl-k8s-\(UUID()).yaml")
        try pipeline.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(pipeline.contains("output_dir: /exports/"))
        let (code, captured) = await InProcessNowETL.run(
            ["validate", file.path],
            environment: ["SN_INSTANCE": "https://acme.service-now.com", "SN_USER": "u", "SN_PASSWORD": "p"])
        #expect(code == 0, "\(captured.standardError)")
    }
}

import Foundation
import NowETL
import NowSimTesting

/// The repository's pipelines/ folder (the docs' examples), which several suites load, validate or
/// run as shipped.
enum RepositoryPipelines {
    /// The repository's root: this file is Tests/NowETLTests/Support/RepositoryPipelines.swift.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// pipelines/ itself.
    static let directory = root.appendingPathComponent("pipelines")

    /// The path of `name` (such as `demo.yaml` or `k8s`) under pipelines/.
    static func path(_ name: String) -> String {
        directory.appendingPathComponent(name).path
    }

    /// Every `.yaml` file directly in pipelines/, sorted: the arguments of the suites that check each one.
    static var files: [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".yaml") }.sorted().map(path)
    }

    /// Loads pipelines/`name` as an operator would run it: `SN_INSTANCE` set, the password in a file of
    /// a scratch `NOWETL_SECRETS` directory.
    static func load(_ name: String) throws -> PipelineConfiguration {
        try withScratchDirectory { (secrets: URL) in
            try "pw\n".write(to: secrets.appendingPathComponent("sn_password"), atomically: true, encoding: .utf8)
            return try PipelineLoader.load(
                path: path(name),
                environment: ["SN_INSTANCE": "https://acme.service-now.com", "NOWETL_SECRETS": secrets.path])
        }
    }
}

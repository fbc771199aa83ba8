import Foundation
import FuzzChecks
import Testing

/// Every input of the fuzz corpora — the seeds and the regressions (inputs that once crashed or broke
/// a check, kept so the fix stays) — passes its target's check, in `make test`, without sanitizers.
@Suite(.timeLimit(.minutes(5))) struct CorpusReplayTests {
    /// `Tests/Fuzz`.
    static let fuzzDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()

    /// The files of `Tests/Fuzz/<kind>/<target>`, sorted; none when the directory does not exist.
    static func files(_ kind: String, _ target: FuzzTarget) -> [URL] {
        let directory = fuzzDirectory.appendingPathComponent(kind).appendingPathComponent(target.rawValue)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { directory.appendingPathComponent($0) }
    }

    @Test(arguments: FuzzTarget.allCases)
    func everySeedAndRegressionInputPasses(target: FuzzTarget) throws {
        let seeds = Self.files("Corpus", target)
        #expect(!seeds.isEmpty, "Tests/Fuzz/Corpus/\(target.rawValue) has seed inputs")
        for file in seeds + Self.files("Regressions", target) {
            let bytes = try [UInt8](Data(contentsOf: file))
            if let failure = target.check(bytes) {
                Issue.record("\(file.path): \(failure)")
            }
        }
    }
}

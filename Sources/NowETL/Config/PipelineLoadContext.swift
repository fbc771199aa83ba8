import Foundation
import Synchronization

/// What the `init(from:)`s of one pipeline load share beyond the document: the pipeline file's
/// directory, which relative paths are resolved against, and the warnings found on the way.
///
/// Handed to them through `Decoder.userInfo` under ``key``; ``PipelineLoader`` creates one per load.
final class PipelineLoadContext: Sendable {
    /// `Decoder.userInfo` key of the context.
    static let key = CodingUserInfoKey(rawValue: "nowetl.pipelineLoadContext")!

    /// The pipeline file's directory as written (`pipelines` for `pipelines/p.yaml`; `.` for `p.yaml`).
    let directory: String
    private let found = Mutex<[(codingPath: [PathKey], message: String)]>([])

    /// A context for the pipeline file named `file`.
    init(file: String) {
        let directory = (file as NSString).deletingLastPathComponent
        self.directory = directory.isEmpty ? "." : directory
    }

    /// The context of a decode, when the decoder has one.
    static func of(_ userInfo: [CodingUserInfoKey: Any]) -> PipelineLoadContext? {
        userInfo[key] as? PipelineLoadContext
    }

    /// `path` as the pipeline means it: absolute paths as they are, relative ones relative to the
    /// pipeline file's directory. The result stays relative when that directory is (`pipelines/out`),
    /// and `..` is kept rather than collapsed, so the system resolves symbolic links as it would.
    func resolve(_ path: String) -> String {
        Self.resolve(path, against: directory)
    }

    /// `path` relative to `directory` unless absolute (see ``resolve(_:)``).
    static func resolve(_ path: String, against directory: String) -> String {
        if path.hasPrefix("/") || directory == "." { return path }
        return directory.hasSuffix("/") ? directory + path : directory + "/" + path
    }

    /// Records a warning about the value at `codingPath`.
    func warn(at codingPath: [any CodingKey], _ message: String) {
        let path = codingPath.map { key in
            key.intValue.map(PathKey.init(intValue:)) ?? PathKey(stringValue: key.stringValue)
        }
        found.withLock { $0.append((path, message)) }
    }

    /// The warnings recorded so far, positioned in `document`, each once, in the order found.
    func warnings(in document: YAMLDocument, interpolation: EnvironmentInterpolation) -> [ConfigWarning] {
        var seen = Set<ConfigWarning>()
        return found.withLock { $0 }.compactMap { entry in
            let mark = document.mark(at: entry.codingPath, utf8Offset: nil, interpolation: interpolation)
            let warning = ConfigWarning(
                file: document.file, line: mark.line, column: mark.column, message: entry.message)
            return seen.insert(warning).inserted ? warning : nil
        }
    }
}

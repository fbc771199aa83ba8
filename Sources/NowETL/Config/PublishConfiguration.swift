/// How a run's outputs become visible to readers: `publish: { mode: in_place | directories, keep: N }`
/// next to `output_dir`.
///
/// ```yaml
/// output_dir: out
/// publish: { mode: directories, keep: 7 }   # out/runs/<run_id>/…, out/current → runs/<run_id>
/// ```
///
/// - `in_place` (the default): files are replaced under their names in `output_dir`, the manifest
///   last. A reader that opens files while a run commits may see some tables new and some old.
/// - `directories`: each run writes into `<output_dir>/runs/<run_id>/`, and its commit switches the
///   `<output_dir>/current` symbolic link to it with one rename, so a reader that goes through
///   `current/` sees one run's files, never a mix. The newest `keep` run directories (the current one
///   included, default 7) are kept; older ones are removed after the switch.
public struct PublishConfiguration: Sendable, Hashable, Decodable {
    /// Where a run's files go and how they become visible.
    public enum Mode: String, Sendable, Hashable, CaseIterable, Decodable {
        /// Replace the files in `output_dir` (the default).
        case inPlace = "in_place"
        /// One directory per run under `runs/`, published through the `current` link.
        case directories
    }

    /// The mode (default ``Mode/inPlace``).
    public var mode: Mode
    /// For ``Mode/directories``: how many run directories to keep, the current one included.
    public var keep: Int

    /// The run directories kept when `keep` is not given.
    public static let defaultKeep = 7
    /// The most run directories `keep` may ask for.
    public static let maximumKeep = 10_000

    /// Files replaced in place.
    public static let inPlace = PublishConfiguration(mode: .inPlace)

    /// Creates a setting.
    public init(mode: Mode, keep: Int = PublishConfiguration.defaultKeep) {
        self.mode = mode
        self.keep = keep
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case mode, keep
    }

    /// Decodes and checks the setting.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        mode = try container.decode(.mode, default: .inPlace)
        let keep = try container.decodeInteger(.keep, default: nil, in: 1...Self.maximumKeep)
        if mode == .inPlace, keep != nil {
            throw container.issue(.keep, "\(container.path(.keep)) applies only to mode directories", pointsAtKey: true)
        }
        self.keep = keep ?? Self.defaultKeep
    }
}

/// Something a sink produced for a committed run: today a file; a table of a database comes with the
/// database sinks.
public enum Artifact: Sendable, Hashable, Codable {
    /// A file in place under its name, with rows, size and checksum (listed in the manifest).
    case file(OutputFile)

    /// The file, when this artifact is one.
    public var outputFile: OutputFile? {
        switch self {
        case .file(let file): file
        }
    }
}

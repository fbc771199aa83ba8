/// Something a sink produced for a committed run: a file, or a table of a database.
public enum Artifact: Sendable, Hashable, Codable {
    /// A file in place under its name, with rows, size and checksum (listed in the manifest).
    case file(OutputFile)
    /// A table of a database loaded by the run (not listed in the manifest, which lists files).
    case databaseTable(DatabaseTableLoad)

    /// The file, when this artifact is one.
    public var outputFile: OutputFile? {
        switch self {
        case .file(let file): file
        case .databaseTable: nil
        }
    }

    /// The database table, when this artifact is one.
    public var databaseTable: DatabaseTableLoad? {
        switch self {
        case .file: nil
        case .databaseTable(let load): load
        }
    }
}

/// Something a sink produced for a committed run: a file, a table of a database, or a table written
/// into another instance.
public enum Artifact: Sendable, Hashable, Codable {
    /// A file in place under its name, with rows, size and checksum (listed in the manifest).
    case file(OutputFile)
    /// A table of a database loaded by the run (not listed in the manifest, which lists files).
    case databaseTable(DatabaseTableLoad)
    /// A table written into another instance (not listed in the manifest either).
    case instanceTable(InstanceTableLoad)

    /// The file, when this artifact is one.
    public var outputFile: OutputFile? {
        switch self {
        case .file(let file): file
        case .databaseTable, .instanceTable: nil
        }
    }

    /// The database table, when this artifact is one.
    public var databaseTable: DatabaseTableLoad? {
        switch self {
        case .file, .instanceTable: nil
        case .databaseTable(let load): load
        }
    }

    /// The instance table, when this artifact is one.
    public var instanceTable: InstanceTableLoad? {
        if case .instanceTable(let load) = self { return load }
        return nil
    }
}

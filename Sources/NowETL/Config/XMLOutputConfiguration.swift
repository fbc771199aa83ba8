/// An XML output: `xml: { path, format: unload | records, gzip, level, split }`.
public struct XMLOutputConfiguration: Sendable, Hashable, Decodable {
    /// The document shape.
    public enum Format: String, Sendable, Hashable, CaseIterable, Decodable {
        /// `<unload unload_date="…"><incident action="INSERT_OR_UPDATE">…`, importable into an
        /// instance (the default).
        case unload
        /// `<xml><incident>…</incident></xml>`, like an instance's `?XML` export.
        case records
    }

    /// Path, compression and splitting.
    public var file: OutputFileSettings
    /// The document shape (default ``Format/unload``).
    public var format: Format

    /// Creates an XML output.
    public init(file: OutputFileSettings, format: Format = .unload) {
        self.file = file
        self.format = format
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case path, format, gzip, level, split
    }

    /// Decodes and checks an XML output.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        file = try OutputFileSettings(from: container)
        format = try container.decode(.format, default: .unload)
    }
}

/// An XML output: `xml: { path, format: unload | records, gzip, level, split }`.
///
/// The format settings are the sink's own ``XMLSinkOptions``.
public struct XMLOutputConfiguration: Sendable, Hashable, Decodable {
    /// Path, compression and splitting.
    public var file: OutputFileSettings
    /// How the XML is written: `format` (default ``XMLSinkOptions/Format/unload``).
    public var options: XMLSinkOptions

    /// Creates an XML output.
    public init(file: OutputFileSettings, options: XMLSinkOptions = XMLSinkOptions()) {
        self.file = file
        self.options = options
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case path, format, gzip, level, split
    }

    /// Decodes and checks an XML output.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        file = try OutputFileSettings(from: container)
        options = XMLSinkOptions(format: try container.decode(.format, default: XMLSinkOptions.Format.unload))
    }
}

/// An output whose settings are a file (``OutputFileSettings``) and the options of its format: `csv`,
/// `json`, `xml` and `sqlite` (``CSVOutputConfiguration``, ``JSONOutputConfiguration``,
/// ``XMLOutputConfiguration``, ``SQLiteOutputConfiguration``).
///
/// The format settings are the sink's own options type; what differs between the formats is how their
/// mapping is read, which each options type says through ``FileOutputFormat``.
public struct FileOutputConfiguration<Options: FileOutputFormat>: Sendable, Hashable, Decodable {
    /// Path, compression and splitting.
    public var file: OutputFileSettings
    /// How the format is written.
    public var options: Options

    /// Creates an output.
    public init(file: OutputFileSettings, options: Options) {
        self.file = file
        self.options = options
    }

    /// Decodes and checks an output: its file settings first, then its format settings.
    public init(from decoder: any Decoder) throws {
        (file, options) = try Options.decodeOutput(from: decoder)
    }
}

/// The options of a file output's format, and how its mapping under `outputs:` is read.
public protocol FileOutputFormat: Sendable, Hashable {
    /// Decodes the mapping of an output of this format (such as `csv: { path, delimiter }`): the file
    /// settings, then the format's own settings, each checked.
    static func decodeOutput(from decoder: any Decoder) throws -> (file: OutputFileSettings, options: Self)
}

/// An XML output: `xml: { path, format: unload | records, datetime_format, gzip, compression,
/// level, split, keep_runs }`.
///
/// The format settings are the sink's own ``XMLSinkOptions``: `format` (default
/// ``XMLSinkOptions/Format/unload``) and, for `records`, `datetime_format` (`instance`, the default, or
/// `iso8601`: ``DateTimeFormat``; an unload is read by an instance's import, which takes its own form only,
/// so `iso8601` is an error there).
public typealias XMLOutputConfiguration = FileOutputConfiguration<XMLSinkOptions>

extension XMLSinkOptions: FileOutputFormat {
    private enum CodingKeys: String, CodingKey, CaseIterable {
        case path, format, gzip, compression, level, split
        case keepRuns = "keep_runs"
        case dateTimeFormat = "datetime_format"
    }

    /// Decodes and checks an XML output.
    public static func decodeOutput(from decoder: any Decoder) throws -> (file: OutputFileSettings, options: Self) {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let file = try OutputFileSettings(from: container)
        let format = try container.decode(.format, default: XMLSinkOptions.Format.unload)
        let dateTimeFormat = try container.decode(.dateTimeFormat, default: DateTimeFormat.instance)
        if format == .unload, dateTimeFormat != .instance {
            throw container.issue(
                .dateTimeFormat,
                "\(container.path(.dateTimeFormat)) must be instance for format: unload (an instance's import "
                    + "reads its own date-times only); use format: records for ISO 8601 date-times")
        }
        return (file, XMLSinkOptions(format: format, dateTimeFormat: dateTimeFormat))
    }
}

/// How ``XMLSink`` writes XML.
public struct XMLSinkOptions: Sendable, Hashable {
    /// The document shape.
    public enum Format: String, Sendable, Hashable, CaseIterable, Codable {
        /// An instance's plain `?XML` export: `<xml><incident><number>…</number>…</incident>…</xml>`;
        /// every record element is named after the exported table.
        case records
        /// An instance's unload format, importable with "Import XML":
        /// `<unload unload_date="…"><incident action="INSERT_OR_UPDATE">…</incident>…</unload>`; each
        /// record element is named after the record's own table (its `sys_class_name`).
        case unload
    }

    /// The document shape; `unload` by default, as in a pipeline file.
    public var format: Format
    /// How date-times are written in `records` (`unload` keeps the instance's form, which an import
    /// reads): the instance's `yyyy-MM-dd HH:mm:ss` (default) or ISO 8601.
    public var dateTimeFormat: DateTimeFormat

    /// Creates options.
    public init(format: Format = .unload, dateTimeFormat: DateTimeFormat = .instance) {
        self.format = format
        self.dateTimeFormat = dateTimeFormat
    }
}

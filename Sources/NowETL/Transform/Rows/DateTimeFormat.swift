/// How a file output writes date-times: `datetime_format: instance` (the default) or `iso8601`.
///
/// `instance` keeps the Table API's own form, `2026-12-01 08:39:23` (UTC, no zone marker) — what
/// the instance sends and what an instance import reads back. `iso8601` writes
/// `2026-12-01T08:39:23Z`, which spreadsheets, pandas and most JSON consumers read as UTC without
/// being told. It applies to the values of date-time columns: columns typed `datetime` (declared, or
/// from the dictionary under a database output, and `_deleted_at`) and columns that read the stored
/// value of a `glide_date_time`/`due_date` field (``ColumnSchema/isDateTimeField``, per
/// `sys_dictionary`). Empty values stay empty, text that is not a date-time is written as it is, and
/// display values (`display_value: true`, `field.display_value`) are the instance user's own locale
/// text and are never touched. Dates (`glide_date`) and durations keep their forms.
public enum DateTimeFormat: String, Sendable, Hashable, CaseIterable, Codable {
    /// `2026-12-01 08:39:23`, UTC: the instance's form.
    case instance
    /// `2026-12-01T08:39:23Z`: ISO 8601 in UTC.
    case iso8601

    /// The ISO 8601 text of `text` when it is an instance date-time (`yyyy-MM-dd HH:mm:ss`), else `nil`.
    static func iso8601Text(ofInstanceDateTime text: String) -> String? {
        guard text.utf8.count == 19, let seconds = ValueConverter.dateTimeSeconds(text) else { return nil }
        var buffer = ByteBuffer(capacity: 20)
        buffer.appendISO8601DateTime(secondsSinceEpoch: seconds)
        return String(decoding: buffer.bytes, as: UTF8.self)
    }
}

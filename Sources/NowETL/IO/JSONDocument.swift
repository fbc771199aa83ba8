import Foundation

/// The form of every JSON document nowetl writes with `JSONEncoder` (manifests, incremental state,
/// commit records, shard manifests, reports): pretty-printed with sorted keys, so equal content gives
/// equal bytes and a change reads well in a diff, and `/` unescaped, as paths and URLs are written.
enum JSONDocument {
    /// An encoder writing that form.
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// `value` as a document ending with a line break.
    ///
    /// - Throws: what `JSONEncoder` throws for a value it cannot encode.
    static func data(_ value: some Encodable) throws -> Data {
        var data = try encoder().encode(value)
        data.append(0x0A)
        return data
    }
}

extension HTTPRequest {
    /// Splits a raw query string (without the leading `?`) into decoded name/value pairs, in order.
    ///
    /// Pairs are separated by `&`; a pair without `=` has an empty value; empty pairs (`a=1&&b=2`) are
    /// skipped. In names and values `+` means a space and `%HH` is a byte; the bytes are read as UTF-8
    /// (invalid sequences become U+FFFD). A `%` not followed by two hex digits stays as it is. This is
    /// what ServiceNow does with `sysparm_query=active%3Dtrue%5Epriority%3C%3D2`, and what the Batch API
    /// needs for the URLs inside a batch body: `FormEncoding.decode(_:)`'s decoding.
    public static func decodeQuery(_ rawQuery: some StringProtocol) -> [(name: String, value: String)] {
        FormEncoding.decode(rawQuery.utf8)
    }

    /// `text` with `%HH` escapes decoded (and `+` read as a space when `plusAsSpace`), as UTF-8.
    ///
    /// `FormEncoding.percentDecode(_:plusAsSpace:)`'s decoding, except that `+` stays a `+` unless
    /// asked otherwise (paths, not queries).
    public static func percentDecoded(_ text: some StringProtocol, plusAsSpace: Bool = false) -> String {
        FormEncoding.percentDecode(text.utf8, plusAsSpace: plusAsSpace)
    }
}

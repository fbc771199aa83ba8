extension EncodedQuery {
    /// One place where encoded-query text names a field, with its byte offset: what a checker needs to
    /// point at a misspelt name inside the text.
    public struct FieldReference: Sendable, Hashable {
        /// What the name is used for.
        public enum Role: Sendable, Hashable {
            /// The field a condition tests (`priority` of `priority=1`).
            case condition
            /// The other field of `SAMEAS`, `NSAMEAS` and the `…_FIELD` operators (`closed_at` of
            /// `opened_atGT_FIELDclosed_at`).
            case comparedField
            /// The field of an `ORDERBY` or `ORDERBYDESC` clause.
            case sort
        }

        /// The field name as written, possibly dot-walked (`caller_id.manager.name`).
        public var field: String
        /// The UTF-8 byte offset of the name's first character in the text.
        public var utf8Offset: Int
        /// What the name is used for.
        public var role: Role

        /// Creates a reference.
        public init(field: String, utf8Offset: Int, role: Role) {
            self.field = field
            self.utf8Offset = utf8Offset
            self.role = role
        }
    }

    /// Every field name `text` uses, in text order, with its offset: condition fields, compared fields
    /// and sort fields.
    ///
    /// The text is parsed exactly as ``init(parsing:)`` parses it, so a text that does not parse throws
    /// the same error. The pseudo-fields `123TEXTQUERY321` and `123TEXTINDEXGROUP321` (text search) are
    /// not fields of any table and are left out.
    ///
    /// - Throws: ``EncodedQueryError`` when `text` is not a valid encoded query.
    public static func fieldReferences(in text: String) throws(EncodedQueryError) -> [FieldReference] {
        _ = try EncodedQuery(parsing: text)
        let bytes = Array(text.utf8)
        var references: [FieldReference] = []
        var start = 0
        while start <= bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != UInt8(ascii: "^") { end += 1 }
            if end > start {
                try references.append(contentsOf: Self.fieldReferences(inSegment: bytes[start..<end], at: start))
            }
            start = end + 1
        }
        return references
    }

    /// The references of one `^`-separated segment starting at byte `offset`, with the rules of the parser.
    private static func fieldReferences(inSegment segment: ArraySlice<UInt8>, at offset: Int)
        throws(EncodedQueryError) -> [FieldReference]
    {
        func hasPrefix(_ prefix: String) -> Bool { segment.starts(with: prefix.utf8) }
        for keyword in ["ORDERBYDESC", "ORDERBY"] where hasPrefix(keyword) {
            let field = String(decoding: segment.dropFirst(keyword.utf8.count), as: UTF8.self)
            return [FieldReference(field: field, utf8Offset: offset + keyword.utf8.count, role: .sort)]
        }
        if segment.elementsEqual("EQ".utf8) { return [] }
        var skipped = 0
        if hasPrefix("OR") || hasPrefix("NQ") { skipped = 2 }
        let conditionText = String(decoding: segment.dropFirst(skipped), as: UTF8.self)
        // The segment alone is a one-condition query: the parser splits field, operator and value.
        guard let condition = try EncodedQuery(parsing: conditionText).groups.first?.terms.first?.conditions.first
        else { return [] }
        var references: [FieldReference] = []
        if !condition.field.hasPrefix("123TEXT") {
            references.append(FieldReference(field: condition.field, utf8Offset: offset + skipped, role: .condition))
        }
        if case .field(let other) = condition.value {
            // The compared field is the whole rest of the segment.
            references.append(
                FieldReference(
                    field: other, utf8Offset: offset + segment.count - other.utf8.count, role: .comparedField))
        }
        return references
    }
}

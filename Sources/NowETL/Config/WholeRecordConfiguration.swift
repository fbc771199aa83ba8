/// What travels with each exported record besides its row (the whole record): its attachments, the
/// entries of its journal fields and its field history — keys of a table.
///
/// ```yaml
/// - table: incident
///   attachments: true                  # or { content_types: [image/*, application/pdf], max_bytes: 50000000 }
///   journal: [work_notes, comments]    # the journal fields whose entries travel with the record
///   audit: true                        # sys_audit rows of the exported records (default false)
/// ```
///
/// The rows come from `sys_attachment` (the Attachment API), `sys_journal_field` and `sys_audit`,
/// for exactly the records the table exports (ref §5 journal fields, §7.3 Attachment API).
public struct WholeRecordConfiguration: Sendable, Hashable {
    /// Which attachments to export; `nil` for none (`attachments: false`, the default).
    public var attachments: AttachmentSelection?
    /// The journal fields whose entries are exported (`sys_journal_field.element`); empty for none.
    public var journal: [String]
    /// Whether the records' `sys_audit` rows are exported.
    public var audit: Bool

    /// Creates a selection; the default exports nothing beside the rows.
    public init(attachments: AttachmentSelection? = nil, journal: [String] = [], audit: Bool = false) {
        self.attachments = attachments
        self.journal = journal
        self.audit = audit
    }

    /// Whether anything beside the rows is exported.
    public var isEmpty: Bool { attachments == nil && journal.isEmpty && !audit }
}

/// Which attachments of the exported records are exported: `attachments: true` (all), or a mapping
/// with `content_types` (MIME types, `image/*` for a whole kind) and `max_bytes` (larger ones are
/// left out and counted).
public struct AttachmentSelection: Sendable, Hashable, Decodable {
    /// The content types taken (`type/subtype` or `type/*`, compared without case); `nil` for all.
    public var contentTypes: [String]?
    /// The largest attachment taken, in bytes; `nil` for no limit.
    public var maxBytes: Int?

    /// All attachments.
    public init(contentTypes: [String]? = nil, maxBytes: Int? = nil) {
        self.contentTypes = contentTypes
        self.maxBytes = maxBytes
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case contentTypes = "content_types"
        case maxBytes = "max_bytes"
    }

    /// Decodes the mapping form (`attachments: true` is read by ``TableConfiguration``).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        contentTypes = try container.decodeNames(
            .contentTypes, rule: "use MIME types such as application/pdf, or image/* for a whole kind",
            isValid: Self.offsetOfInvalidContentType)
        maxBytes = try container.decodeInteger(.maxBytes, default: nil, in: 1...Int(Int64.max / 2))
    }

    /// Whether an attachment of `contentType` and `bytes` is taken.
    public func accepts(contentType: String, bytes: Int) -> Bool {
        if let maxBytes, bytes > maxBytes { return false }
        guard let contentTypes else { return true }
        let type =
            contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return contentTypes.contains { pattern in
            let pattern = pattern.lowercased()
            if pattern.hasSuffix("/*") { return type.hasPrefix(pattern.dropLast()) }
            return type == pattern
        }
    }

    /// The UTF-8 offset of the first character that makes `text` no `type/subtype` (or `type/*`).
    static func offsetOfInvalidContentType(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard let slash = bytes.firstIndex(of: UInt8(ascii: "/")), slash > 0, slash < bytes.count - 1 else {
            return 0
        }
        for (offset, byte) in bytes.enumerated() where offset != slash {
            let ok =
                (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                || Array("+-.*_".utf8).contains(byte)
            if !ok { return offset }
        }
        return nil
    }
}

/// One record element of an unload XML document, as ``UnloadXMLReader`` reads it.
///
/// `<incident action="INSERT_OR_UPDATE"><number>INC0010001</number><parent display_value=""/>…</incident>`
/// is the record of table `incident` with the fields in document order; an empty element is an empty
/// value (`nil`), and attributes of a field (`display_value`, `name`, `source`) are not kept: the
/// element's text is the stored value.
struct UnloadRecord: Sendable, Equatable {
    /// What the record asks for (its `action` attribute).
    enum Action: Sendable, Equatable {
        /// `INSERT_OR_UPDATE`: insert, or update the record with this sys_id.
        case insertOrUpdate
        /// `DELETE`: delete the record with this sys_id.
        case delete
    }

    /// The element name: the table (class) the record belongs to.
    var table: String
    /// The `action` attribute.
    var action: Action
    /// The fields in document order; `nil` for an empty element.
    var fields: [(name: String, value: String?)]
    /// The line of the record's start tag, for messages.
    var line: Int

    /// The last value given for `name` (`.some(nil)` for an empty element), or `nil` when absent.
    func value(of name: String) -> String?? {
        fields.last { $0.name == name }.map(\.value)
    }

    static func == (lhs: UnloadRecord, rhs: UnloadRecord) -> Bool {
        lhs.table == rhs.table && lhs.action == rhs.action && lhs.line == rhs.line
            && lhs.fields.map(\.name) == rhs.fields.map(\.name) && lhs.fields.map(\.value) == rhs.fields.map(\.value)
    }
}

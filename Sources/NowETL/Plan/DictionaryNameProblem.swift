/// A name in a pipeline's table that the instance's dictionary does not know, found by
/// ``DictionaryNameCheck``: where it is and what is wrong, ready to become a positioned ``ConfigError``
/// (``LocatedPipeline/configError(for:)``).
public struct DictionaryNameProblem: Sendable, Hashable {
    /// The scalar of the table's configuration the name is in.
    public enum Place: Sendable, Hashable {
        /// `tables[i].table`.
        case table
        /// `tables[i].filter`.
        case filter
        /// `tables[i].fields[j]`.
        case field(Int)
        /// `tables[i].columns[k].path`.
        case columnPath(Int)
        /// `tables[i].cursor` (the default `sys_updated_on` when the key is not written).
        case cursor
        /// `tables[i].journal[j]`.
        case journal(Int)
    }

    /// The index of the table in the pipeline's `tables:`.
    public var tableIndex: Int
    /// The scalar the name is in.
    public var place: Place
    /// The UTF-8 offset of the name's first character in the scalar's (substituted) value.
    public var utf8Offset: Int
    /// What is wrong, with a "did you mean" where one is close; no position, no `error:` prefix.
    public var message: String

    /// Creates a problem.
    public init(tableIndex: Int, place: Place, utf8Offset: Int, message: String) {
        self.tableIndex = tableIndex
        self.place = place
        self.utf8Offset = utf8Offset
        self.message = message
    }

    /// The coding path of the scalar.
    var codingPath: [any CodingKey] { Self.codingPath(of: place, tableIndex: tableIndex) }

    /// `tables[0].columns[2].path`, for messages.
    static func describe(_ place: Place, tableIndex: Int) -> String {
        ConfigPath(codingPath: codingPath(of: place, tableIndex: tableIndex)).description
    }

    private static func codingPath(of place: Place, tableIndex: Int) -> [any CodingKey] {
        let table: [any CodingKey] = [PathKey(stringValue: "tables"), PathKey(index: tableIndex)]
        switch place {
        case .table: return table + [PathKey(stringValue: "table")]
        case .filter: return table + [PathKey(stringValue: "filter")]
        case .cursor: return table + [PathKey(stringValue: "cursor")]
        case .field(let index): return table + [PathKey(stringValue: "fields"), PathKey(index: index)]
        case .journal(let index): return table + [PathKey(stringValue: "journal"), PathKey(index: index)]
        case .columnPath(let index):
            return table + [PathKey(stringValue: "columns"), PathKey(index: index), PathKey(stringValue: "path")]
        }
    }
}

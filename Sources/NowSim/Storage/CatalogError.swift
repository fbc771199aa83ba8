/// Schema rows that do not make a consistent catalog.
public struct CatalogError: Error, CustomStringConvertible, Sendable {
    /// The table whose rows are at fault, when one is.
    public var table: String?
    /// What is wrong.
    public var message: String

    /// A readable one-line description.
    public var description: String {
        if let table { return "schema of table \(table): \(message)" }
        return "schema: \(message)"
    }
}

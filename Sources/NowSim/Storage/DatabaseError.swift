/// A database file nowsim cannot use, with what to do about it.
public struct DatabaseError: Error, CustomStringConvertible, Sendable {
    /// The database file.
    public var path: String
    /// What is wrong.
    public var message: String
    /// What the user can do.
    public var hint: String?

    /// A readable one-line description.
    public var description: String {
        "cannot use database \(path): \(message)" + (hint.map { " (\($0))" } ?? "")
    }
}

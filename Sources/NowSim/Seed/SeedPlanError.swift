/// A `--seed` plan that cannot be parsed, naming the entry at fault.
public struct SeedPlanError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The offending `TABLE=N` entry (or the whole text).
    public var entry: String
    /// What is wrong with it.
    public var message: String

    /// A readable one-line description.
    public var description: String { "invalid seed plan entry \"\(entry)\": \(message)" }
}

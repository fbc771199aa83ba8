/// Anything that renders as an encoded query fragment (`active=true`, `a=1^ORb=2`).
public protocol QueryProviding: Sendable {
    /// The encoded query text.
    var query: String { get }
}

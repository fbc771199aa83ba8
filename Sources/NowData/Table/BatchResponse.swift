import Foundation

/// The answer of a Batch API call: each serviced item's status and body, and the ids the instance did
/// not run (or ran without returning the answer) because a limit of the call was reached (ref §7.2).
public struct BatchResponse: Sendable, Hashable {
    /// One serviced item.
    public struct Item: Sendable, Hashable {
        /// The item's id.
        public var id: String
        /// Its HTTP status.
        public var statusCode: Int
        /// Its decoded body.
        public var body: Data
    }

    /// The items run, with their answers.
    public var serviced: [Item]
    /// The ids of items not run, or run without their answer: send them again.
    public var unserviced: [String]
}

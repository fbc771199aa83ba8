/// A user or OAuth client specification (`NAME:PASSWORD[:ROLE…]`, `ID:SECRET`) that cannot be used.
///
/// The description names the user or client and says what is wrong and what is expected; it never
/// contains the password or secret, so it is safe to print and log.
public struct AuthConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong with the specification.
    public enum Kind: Sendable, Hashable {
        /// The name (or client id) before the first `:` is empty.
        case emptyName
        /// There is no `:` separating a password (or secret) from the name.
        case missingPassword
        /// The password (or secret) is empty.
        case emptyPassword
        /// A role after the password is empty (`NAME:PASSWORD::itil`, or a trailing `:`).
        case emptyRole
    }

    /// What is wrong.
    public var kind: Kind
    /// `"user"` or `"OAuth client"`.
    public var subject: String
    /// The user name or client id, if the specification had one (never the secret part).
    public var name: String?
    /// The expected form, e.g. `NAME:PASSWORD[:ROLE…]`.
    public var expectedForm: String

    /// Creates an error.
    public init(kind: Kind, subject: String, name: String?, expectedForm: String) {
        self.kind = kind
        self.subject = subject
        self.name = name
        self.expectedForm = expectedForm
    }

    /// A sentence naming the subject, the problem and the expected form.
    public var description: String {
        let who = name.map { "\(subject) '\($0)'" } ?? subject
        let problem =
            switch kind {
            case .emptyName: "has an empty name"
            case .missingPassword: subject == "user" ? "has no password" : "has no secret"
            case .emptyPassword: subject == "user" ? "has an empty password" : "has an empty secret"
            case .emptyRole: "has an empty role name"
            }
        return "\(who) \(problem); expected \(expectedForm)"
    }
}

/// A user that may call nowsim's APIs: a name, a password and the roles it holds.
///
/// nowsim keeps users in configuration rather than in `sys_user`, so that authentication works
/// before (and whatever) seed data is loaded. ``description`` and ``debugDescription`` never show
/// the password.
public struct APIUser: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The login name (`user_name` in `sys_user`).
    public var userName: String
    /// The password, compared exactly (case-sensitive).
    public var password: String
    /// The roles held, e.g. `["admin"]` or `["itil", "rest_api_explorer"]`.
    public var roles: [String]

    /// Creates a user.
    public init(userName: String, password: String, roles: [String] = []) {
        self.userName = userName
        self.password = password
        self.roles = roles
    }

    /// The default user, `admin` with password `admin` and role `admin`, as on a fresh instance.
    public static let defaultAdmin = APIUser(userName: "admin", password: "admin", roles: ["admin"])

    /// Parses `NAME:PASSWORD[:ROLE…]`, e.g. `admin:admin:admin` or `etl:s3cret:itil:snc_read_only`.
    ///
    /// The name ends at the first `:`, the password at the second; every further `:`-separated part
    /// is a role. A password therefore cannot contain `:` (use the memberwise initialiser for such
    /// passwords). Nothing is trimmed: spaces belong to the name, password or role.
    ///
    /// - Throws: ``AuthConfigurationError`` for an empty name, a missing or empty password, or an
    ///   empty role; its description names the user but never the password.
    public init(parsing specification: String) throws(AuthConfigurationError) {
        let expected = "NAME:PASSWORD[:ROLE…]"
        let parts = specification.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let name = parts[0]
        guard !name.isEmpty else {
            throw AuthConfigurationError(kind: .emptyName, subject: "user", name: nil, expectedForm: expected)
        }
        guard parts.count >= 2 else {
            throw AuthConfigurationError(kind: .missingPassword, subject: "user", name: name, expectedForm: expected)
        }
        guard !parts[1].isEmpty else {
            throw AuthConfigurationError(kind: .emptyPassword, subject: "user", name: name, expectedForm: expected)
        }
        let roles = Array(parts.dropFirst(2))
        guard !roles.contains(where: \.isEmpty) else {
            throw AuthConfigurationError(kind: .emptyRole, subject: "user", name: name, expectedForm: expected)
        }
        self.init(userName: name, password: parts[1], roles: roles)
    }

    /// Whether the user holds `role`; a user with `admin` holds every role, as on the platform.
    public func hasRole(_ role: String) -> Bool {
        roles.contains(role) || roles.contains("admin")
    }

    /// `APIUser(admin, roles: admin)`; the password is never shown.
    public var description: String {
        "APIUser(\(userName), roles: \(roles.joined(separator: ",")))"
    }

    /// Same as ``description``: the password is never shown.
    public var debugDescription: String { description }

    /// A mirror without the password, so that `dump` and test failure messages do not reveal it.
    public var customMirror: Mirror {
        Mirror(self, children: ["userName": userName, "roles": roles], displayStyle: .struct)
    }
}

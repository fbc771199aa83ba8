import Foundation
import NowData

/// Who nowetl signs in to an instance as, and where that is set: what the message of a refusal names
/// (``NowETLError/refusal(in:accounts:)``). It holds a user name or an OAuth `client_id`, never a
/// secret.
public struct InstanceAccount: Sendable, Hashable {
    /// The instance's base URL, to tell which account a failed request was made with.
    public var instance: URL
    /// Who signs in: `user etl`, `OAuth client 3f1c…`, `user etl (OAuth client 3f1c…)`.
    public var principal: String
    /// Where the credentials are set: `source.auth`, `outputs[1].instance.auth`, `SN_USER and SN_PASSWORD`.
    public var setting: String
    /// Whether the instance is a migration's target (its messages say "the target instance").
    public var isTarget: Bool

    /// Creates an account.
    public init(instance: URL, principal: String, setting: String, isTarget: Bool = false) {
        self.instance = instance
        self.principal = principal
        self.setting = setting
        self.isTarget = isTarget
    }

    /// The account of `connection`, whose credentials are set at `setting`.
    public init(_ connection: InstanceConnection, setting: String, isTarget: Bool = false) {
        self.init(
            instance: connection.instance, principal: Self.principal(of: connection.auth), setting: setting,
            isTarget: isTarget)
    }

    /// `user etl`, `OAuth client 3f1c…`, or for the password grant `user etl (OAuth client 3f1c…)`.
    static func principal(of auth: SourceAuthentication) -> String {
        switch auth {
        case .basic(let user, _): "user \(user)"
        case .oauth(let oauth):
            switch oauth.grant {
            case .password(let user, _): "user \(user) (OAuth client \(oauth.clientID))"
            case .clientCredentials: "OAuth client \(oauth.clientID)"
            }
        }
    }

    /// `the instance`, or `the target instance` for a migration's target.
    var side: String { isTarget ? "the target instance" : "the instance" }

    /// Whether `url` (a request's) addresses this account's instance: same scheme, host and port.
    func addresses(_ url: String) -> Bool {
        guard let request = URL(string: url) else { return false }
        func key(_ url: URL) -> String {
            let scheme = url.scheme?.lowercased() ?? ""
            let port = url.port ?? (scheme == "http" ? 80 : 443)
            return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
        }
        return key(request) == key(instance)
    }
}

extension PipelineConfiguration {
    /// The accounts of the source (`source.auth`) and of every `instance:` output
    /// (`outputs[N].instance.auth`, counted from 0), in that order.
    public var accounts: [InstanceAccount] {
        var accounts = [InstanceAccount(source.connection, setting: "source.auth")]
        for (index, output) in outputs.enumerated() {
            guard case .instance(let instance) = output else { continue }
            accounts.append(
                InstanceAccount(instance.connection, setting: "outputs[\(index)].instance.auth", isTarget: true))
        }
        return accounts
    }
}

extension NowETLError {
    /// The characters of the instance's own `message` and `detail` a refusal quotes: enough for
    /// `ACL Exception Update Failed due to security constraints`, short of flooding a line.
    static let quotedServerText = 120

    /// `error` told as the refusal it is when the instance refused the request underneath it — HTTP 401
    /// (the credentials), HTTP 403 (a permission: the table's ACLs, or for a write a business rule or
    /// data policy) or a token request the token endpoint rejected — naming who asked (``InstanceAccount``,
    /// found by the request's URL) and the table, and saying what to do; `nil` for any other error.
    ///
    /// The one place these messages are made: the runner, `preview`, `reconcile`, `discover` and `init`
    /// pass their errors through it.
    ///
    /// ```
    /// table incident: fetching a page: the instance denied user etl read access to table incident:
    ///   HTTP 403 "Insufficient rights to query records"; give the user a role that the read ACLs of table incident allow
    /// table incident: the instance refused the credentials of user etl: HTTP 401 "User Not Authenticated"; check source.auth: …
    /// ```
    ///
    /// The step and the places of the error (the table, the partition, the page) stay as they were; the
    /// refused request stays the cause (``RefusedRequest``), shown as its status and the instance's own
    /// words (bounded, control characters escaped: an instance's text is hostile input) instead of its
    /// URL. Only an error whose code is ``Code/authentication`` is told so: a write the target refused by
    /// the record's content (a unique index, a data policy) keeps its own message and exit code.
    public static func refusal(in error: any Error, accounts: [InstanceAccount]) -> NowETLError? {
        guard let error = error as? NowETLError, error.code == .authentication else {
            if let error = error as? NowDataError, error.classification == .authentication {
                return NowETLError(.authentication, "", cause: error).explainingRefusal(accounts: accounts)
            }
            return nil
        }
        return error.explainingRefusal(accounts: accounts)
    }

    /// This error with the refusal its cause chain ends in told, as ``refusal(in:accounts:)``.
    private func explainingRefusal(accounts: [InstanceAccount], table outer: String? = nil) -> NowETLError? {
        let table = context.table ?? outer
        if let inner = cause as? NowETLError {
            guard let explained = inner.explainingRefusal(accounts: accounts, table: table) else { return nil }
            var error = self
            error.cause = explained
            return error
        }
        guard let refused = cause as? NowDataError, refused.classification == .authentication else { return nil }
        let request = refused.context
        let account = request.flatMap { request in accounts.first { $0.addresses(request.url) } } ?? accounts.first
        let side = account?.side ?? "the instance"
        let who = account?.principal ?? "the user"
        let setting = account?.setting ?? "the credentials"
        let requested = request?.table ?? table
        let what: String
        let remedy: String
        if refused.statusCode == 403, let requested {
            let writes = ["POST", "PUT", "PATCH", "DELETE"].contains(request?.method ?? "GET")
            what = "\(side) denied \(who) \(writes ? "write" : "read") access to table \(requested)"
            remedy = writes ? Self.writeRemedy(requested) : Self.readRemedy(requested)
        } else if refused.statusCode == 403 {
            what = "\(side) denied \(who) the request"
            remedy = "give the user a role the instance's ACLs allow it for"
        } else {
            what = "\(side) refused the credentials of \(who)"
            remedy =
                "check \(setting)" + (setting.hasSuffix(".auth") ? ": the user and password, or the OAuth client" : "")
        }
        var error = self
        // Which step met a 401 says nothing: the credentials are refused whatever is asked.
        error.message = message.isEmpty || refused.statusCode != 403 ? what : message + ": " + what
        error.cause = RefusedRequest(error: refused)
        error.remedy = remedy
        return error
    }

    /// What a user refused reading `table` needs: the tables nowetl reads besides a pipeline's own say
    /// why it reads them.
    private static func readRemedy(_ table: String) -> String {
        switch table {
        case "sys_db_object", "sys_dictionary":
            // ref §7: reading the dictionary needs suitable roles; non-admin integration users often lack them.
            "names and fields are read from sys_db_object and sys_dictionary: give the user a role that the read "
                + "ACLs of both allow (integration users without admin often lack one)"
        case DeletionCapture.auditTable:
            "deletes: true reads sys_audit_delete (the deleted records), which users without admin often may not "
                + "read: give the user a role that its read ACLs allow, or set deletes: false"
        case "sys_choice":
            "choice values and labels are read from sys_choice: give the user a role that its read ACLs allow"
        default:
            // ref §6.1: the API user is subject to the same ACLs as an interactive user.
            "give the user a role that the read ACLs of table \(table) allow"
        }
    }

    /// What a user refused writing `table` needs.
    private static func writeRemedy(_ table: String) -> String {
        // ref §1.3: ACLs, business rules or data policies can answer 403; the instance's words say which.
        "give the user a role that the create and write ACLs of table \(table) allow (the instance's words "
            + "above say whether a business rule or data policy refused it instead)"
    }
}

/// A request the instance refused (HTTP 401 or 403, a rejected token request), as the cause of a
/// ``NowETLError`` that tells the refusal: shown as its status and the instance's own words, bounded
/// and with control characters escaped, without the URL (the URL is in the error's context and
/// logged at `--log-level debug`).
public struct RefusedRequest: Error, Sendable, CustomStringConvertible {
    /// The refused request's error, as NowData threw it.
    public var error: NowDataError

    /// `HTTP 403 "Insufficient rights to query records"`, `HTTP 401 "User Not Authenticated — Required …"`.
    public var description: String {
        guard let status = error.statusCode else {
            // A token request: NowData's text names the token endpoint's answer, not a URL.
            return PrintableText.escaped(String(error.description.prefix(NowETLError.quotedServerText * 2)))
        }
        let words = [error.context?.message, error.context?.detail].compactMap { text -> String? in
            guard let text, !text.isEmpty else { return nil }
            let bounded =
                text.count > NowETLError.quotedServerText
                ? text.prefix(NowETLError.quotedServerText) + "…" : Substring(text)
            return PrintableText.escaped(String(bounded))
        }
        return words.isEmpty ? "HTTP \(status)" : "HTTP \(status) \"\(words.joined(separator: " — "))\""
    }
}

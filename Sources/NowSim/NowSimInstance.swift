import Foundation
import NowSQLite

/// The emulated instance: routes every request to the Table API, its companions or an error, after
/// authenticating it. This is the `HTTPHandler` the server calls.
public final class NowSimInstance: HTTPHandler, Sendable {
    /// The schema, loaded from the database's `sys_db_object`/`sys_dictionary`/`sys_choice` rows.
    public let catalog: Catalog
    let pool: SQLiteConnectionPool
    let settings: InstanceSettings
    /// Injected misbehaviour (`--fault`, `PUT /api/nowsim/faults`).
    public let faults: FaultInjector
    /// Users, OAuth clients and issued tokens.
    public let authenticator: Authenticator
    /// Read ACLs by role and row conditions by user (`--table-acl`, `--row-acl`).
    public let accessRules: AccessRules
    private let shutdown = ShutdownNotice()

    /// Creates an instance over the database at `databasePath`, whose schema must already exist.
    public init(
        databasePath: String, settings: InstanceSettings, connections: Int, authenticator: Authenticator,
        faults: FaultInjector = FaultInjector(), accessRules: AccessRules = AccessRules()
    ) throws {
        let pool = SQLiteConnectionPool(path: databasePath, capacity: connections)
        self.pool = pool
        self.catalog = try pool.withConnection { try Catalog.load(from: $0) }
        self.settings = settings
        self.authenticator = authenticator
        self.faults = faults
        self.accessRules = accessRules
    }

    /// Begins shutdown: requests held by a `delay` fault are answered at once with 503 `Service
    /// Unavailable` (nothing of them is run), and so are later ones the fault strikes.
    public func beginShutdown() {
        shutdown.announce()
    }

    /// The answer to a delayed request that shutdown cut short.
    static let shuttingDown = ErrorEnvelope.response(
        status: 503, message: "Service Unavailable", detail: "nowsim is shutting down")

    /// Answers one request, gzip-compressed when it asks for that (``ResponseCompression``).
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        var response = route(request)
        ResponseCompression.apply(to: &response, for: request)
        return response
    }

    /// Answers one request uncompressed: the router, which the Batch API also runs its items through
    /// (an item's answer is embedded base64-encoded in the batch answer, never content-coded).
    func route(_ original: HTTPRequest) -> HTTPResponse {
        var request = original
        if let override = request.header("x-http-method-override"), !override.isEmpty {
            request.method = override.uppercased()
        }
        if request.path == OAuthTokenEndpoint.path {
            return OAuthTokenEndpoint(authenticator: authenticator).handle(request)
        }
        let authenticatedUser: APIUser
        switch authenticator.authenticate(request) {
        case .user(let user): authenticatedUser = user
        case .failure(let response): return response
        }
        let caller = Caller(userName: authenticatedUser.userName, roles: authenticatedUser.roles)
        if request.path == BatchAPI.path {
            return BatchAPI(dispatcher: Router(instance: self)).handle(request, authenticatedAs: authenticatedUser)
        }
        if request.path == FaultsEndpoint.path {
            return FaultsEndpoint(injector: faults).handle(request, caller: caller)
        }
        if request.path == UnloadImportEndpoint.path {
            return UnloadImportEndpoint(instance: self).handle(request, caller: caller)
        }
        if let route = AttachmentAPI.Route(path: request.path) {
            let api = AttachmentAPI(
                catalog: catalog, pool: pool, settings: settings, accessRules: accessRules, caller: caller)
            return api.handle(request, route: route)
        }
        if let route = TableRoute(path: request.path, api: "table") {
            guard let format = ResponseFormat(accepting: request) else { return ErrorEnvelope.notAcceptable() }
            return withFaults(table: route.table, api: .table, corruptsText: format == .json) { decision in
                var api = TableAPI(catalog: catalog, pool: pool, settings: settings)
                api.hiddenFraction = decision.hiddenFraction
                api.hiddenRun = decision.hiddenRun
                api.ignoresCursor = decision.stuckCursor
                api.accessRules = accessRules
                return ErrorEnvelope.converted(api.handle(request, route: route, caller: caller), to: format)
            }
        }
        if let route = TableRoute(path: request.path, api: "stats"), route.version != 2 {
            if let table = catalog.table(route.table), !accessRules.mayRead(table, caller: caller, catalog: catalog) {
                return ErrorEnvelope.insufficientRights
            }
            return withFaults(table: route.table, api: .stats, corruptsText: false) { decision in
                var stats = StatsAPI(catalog: catalog, pool: pool, settings: settings)
                stats.countOverride = decision.count
                if let table = catalog.table(route.table) {
                    stats.visibility = RowVisibility(rules: accessRules, caller: caller, table: table, catalog: catalog)
                }
                return stats.handle(request, route: route)
            }
        }
        return ErrorEnvelope.noResource
    }

    /// Runs `body` under the faults that strike this request.
    ///
    /// `corruptsText` says whether an `invalid-utf8` fault may act on the answer: only Table API
    /// answers in JSON carry the records it corrupts (an Aggregate API count or an XML body is left
    /// alone, whatever the fault's table).
    private func withFaults(
        table: String, api: Fault.API, corruptsText: Bool, _ body: (FaultInjector.Decision) -> HTTPResponse
    ) -> HTTPResponse {
        let decision = faults.decide(table: table, api: api)
        if decision.delayMilliseconds > 0, !shutdown.sleep(milliseconds: min(decision.delayMilliseconds, 600_000)) {
            return Self.shuttingDown
        }
        if let response = decision.response { return response }
        var response = body(decision)
        if decision.truncate && response.status == 200 {
            response.body = FaultInjector.truncated(response.body)
        } else if decision.cut && response.status == 200 {
            response.body = FaultInjector.cut(response.body)
        }
        if corruptsText && response.status == 200 {
            for corruption in decision.invalidUTF8 { response.body = corruption.apply(to: response.body) }
        }
        if let count = decision.totalCount ?? decision.count,
            let index = response.headers.firstIndex(where: { $0.name == "X-Total-Count" })
        {
            response.headers[index].value = count
        }
        if response.status == 200 { Self.applyEncodingFaults(decision, to: &response) }
        return response
    }

    /// The faults that act on a successful answer's bytes as a whole: `gzip-bomb` replaces them,
    /// `oversize` pads them, `content-encoding` mislabels them.
    private static func applyEncodingFaults(_ decision: FaultInjector.Decision, to response: inout HTTPResponse) {
        if let size = decision.gzipBomb, let bomb = GzipBomb.body(inflatingTo: size) {
            response.body = bomb
            response.headers.append(("Content-Encoding", "gzip"))
            return
        }
        if let size = decision.oversize, size > response.body.count {
            // Inside the outermost JSON object, so that a parser has to read through it; after an XML
            // body (white space may follow the root element).
            let isJSON = response.body.last == UInt8(ascii: "}")
            response.padding = BodyPadding(
                byte: UInt8(ascii: " "), count: size - response.body.count,
                offset: isJSON ? response.body.count - 1 : response.body.count)
        }
        if let encoding = decision.contentEncoding {
            response.headers.append(("Content-Encoding", encoding))
        }
    }
}

/// The instance's router without response compression, as the Batch API's dispatcher.
private struct Router: HTTPHandler {
    let instance: NowSimInstance

    func handle(_ request: HTTPRequest) -> HTTPResponse { instance.route(request) }
}

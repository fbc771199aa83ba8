import Foundation
import NowData
import NowSimTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// NowData against the real nowsim: every ``NowTableService`` method in both forms, models and raw
/// records, paginators, read and write options, OAuth grants and the error paths of real instances.
///
/// One nowsim serves the whole suite (300 incidents, 50 problems, an admin and a read-only user). The
/// tests run one after another because some switch nowsim's faults at run time. Reads and paging use
/// `incident`, which no test changes; writes go to `problem` and `sys_user`.
@Suite(.serialized, .timeLimit(.minutes(5))) struct NowSimIntegrationTests {
    let server: NowSimInstance

    init() async throws {
        server = try await SharedNowSim.get()
    }

    // MARK: - Models

    struct Incident: SysIdentifiableModel, Sendable, Equatable {
        var sysId: String = ""
        var number: String?
        var shortDescription: String?
        var priority: String?
        var openedAt: Date?

        enum CodingKeys: String, CodingKey {
            case sysId, number, priority
            case shortDescription = "short_description"
            case openedAt = "opened_at"
        }
    }

    struct Problem: SysIdentifiableModel, Sendable, Equatable {
        var sysId: String = ""
        var number: String?
        var shortDescription: String
        var priority: String?

        enum CodingKeys: String, CodingKey {
            case sysId, number, priority
            case shortDescription = "short_description"
        }
    }

    struct User: SysIdentifiableModel, Sendable {
        var sysId: String = ""
        var name: String
        var email: String
        var userName: String?

        enum CodingKeys: String, CodingKey {
            case sysId, name, email
            case userName = "user_name"
        }
    }

    struct Row: Decodable, Sendable {
        // swift-format-ignore: AlwaysUseLowerCamelCase
        // The Table API's own key: a plain Decodable row keeps it.
        var sys_id: String
    }

    static let incidentCount = 300

    // MARK: - Raw records

    @Test func rawRecordsInBothForms() async throws {
        let service = makeService()
        let configuration = FetchConfiguration(
            filter: Filter(query: "ORDERBYnumber"), limit: 5,
            readConfiguration: FieldReadConfiguration(includeFields: ["sys_id", "number", "priority"]))
        let data = try await service.records(from: "incident", configuration: configuration)
        let records = try data.decodeRecords()
        #expect(records.count == 5)
        #expect(records.map { $0["number"]?.value } == (1...5).map { "INC001000\($0)" })
        #expect(records.allSatisfy { $0.sysId.count == 32 && $0.id == $0.sysId && $0.fields.count == 3 })

        let viaHandler = try await Self.completion { done in
            service.records(from: "incident", configuration: configuration, completion: done)
        }.get()
        #expect(try viaHandler.decodeRecords() == records)

        let first = try #require(records.first)
        let one = try await service.record(with: first.sysId, from: "incident")
        #expect(try one.decodeRecord().sysId == first.sysId)
        #expect(try one.decodeRecord()["number"]?.value == "INC0010001")
        let oneViaHandler = try await Self.completion { done in
            service.record(
                with: first.sysId, from: "incident",
                configuration: FieldReadConfiguration(includeFields: ["number"]), completion: done)
        }.get()
        #expect(try oneViaHandler.decodeRecord().fields.keys.sorted() == ["number"])
    }

    @Test func rawCreateUpdateDeleteInBothForms() async throws {
        let service = makeService()
        let fields: FieldReadConfiguration = FieldReadConfiguration(
            includeFields: ["sys_id", "number", "short_description", "priority"])
        let created = try await service.createRecord(
            with: ["short_description": "Raw create", "priority": 2], in: "problem", configuration: fields
        ).decodeRecord()
        #expect(created["short_description"]?.value == "Raw create")
        #expect(created["priority"]?.value == "2")
        #expect(created["number"]?.value?.hasPrefix("PRB") == true)

        let updated = try await service.updateRecord(
            sysId: created.sysId, in: "problem", with: ["short_description": "Raw update"], configuration: fields
        ).decodeRecord()
        #expect(updated.sysId == created.sysId)
        #expect(updated["short_description"]?.value == "Raw update")
        #expect(updated["priority"]?.value == "2", "PUT is a partial update")

        try await service.deleteRecord(sysId: created.sysId, from: "problem")
        await expectStatus(404) { try await service.record(with: created.sysId, from: "problem") }

        let second = try await Self.completion { done in
            service.createRecord(with: ["short_description": "Handler create"], in: "problem", completion: done)
        }.get().decodeRecord()
        let secondUpdated = try await Self.completion { done in
            service.updateRecord(sysId: second.sysId, in: "problem", with: ["priority": 1], completion: done)
        }.get().decodeRecord()
        #expect(secondUpdated["priority"]?.value == "1")
        #expect(secondUpdated["short_description"]?.value == "Handler create")
        try await Self.completion { done in
            service.deleteRecord(sysId: second.sysId, from: "problem", completion: done)
        }.get()
        await expectStatus(404) { try await service.record(with: second.sysId, from: "problem") }
    }

    // MARK: - Models

    @Test func modelsListOneAndCompletion() async throws {
        let service = makeService()
        let urgent = FetchConfiguration(
            filter: Filter(conditions: [Condition.integerChoice(field: "priority", .is(1))], sorts: [.asc("number")]),
            limit: 500)
        let incidents = try await service.model(
            [Incident].self, from: "incident", path: "result", configuration: urgent)
        #expect(!incidents.isEmpty)
        #expect(incidents.allSatisfy { $0.priority == "1" && $0.sysId.count == 32 && $0.openedAt != nil })
        let numbers = incidents.compactMap(\.number)
        #expect(numbers == numbers.sorted())

        let first = try #require(incidents.first)
        let one = try await service.model(Incident.self, with: first.sysId, from: "incident")
        #expect(one == first)
        let oneViaHandler = try await Self.completion { done in
            service.model(Incident.self, with: first.sysId, from: "incident", completion: done)
        }.get()
        #expect(oneViaHandler == first)
        let listViaHandler = try await Self.completion { done in
            service.model([Incident].self, from: "incident", configuration: urgent, completion: done)
        }.get()
        #expect(listViaHandler == incidents)

        // A custom coder: snake_case keys converted, no CodingKeys needed.
        struct Snake: Decodable, Sendable {
            var number: String
            var shortDescription: String
            var sysId: String
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let snakes = try await service.model(
            [Snake].self, from: "incident", coder: .custom(JSONEncoder(), decoder), configuration: urgent)
        #expect(snakes.map(\.sysId) == incidents.map(\.sysId))
        #expect(snakes.map(\.shortDescription) == incidents.compactMap(\.shortDescription))
    }

    @Test func modelCreateUpdateDeleteInBothForms() async throws {
        let service = makeService()
        var created = try await service.create(Problem(shortDescription: "Model create", priority: "3"), in: "problem")
        #expect(created.sysId.count == 32)
        #expect(created.number?.hasPrefix("PRB") == true)
        #expect(created.priority == "3")
        created.shortDescription = "Model update"
        let updated = try await service.update(created, in: "problem")
        #expect(updated == created)
        try await service.delete(updated, from: "problem")
        await expectStatus(404) { try await service.record(with: updated.sysId, from: "problem") }

        var second = try await Self.completion { done in
            service.create(Problem(shortDescription: "Handler model"), in: "problem", completion: done)
        }.get()
        second.priority = "1"
        let secondUpdated = try await Self.completion { done in
            service.update(second, in: "problem", completion: done)
        }.get()
        #expect(secondUpdated.priority == "1")
        try await Self.completion { done in service.delete(secondUpdated, from: "problem", completion: done) }.get()
        await expectStatus(404) { try await service.record(with: second.sysId, from: "problem") }

        await #expect(throws: NowDataError.self) {
            try await service.update(Problem(shortDescription: "x"), in: "problem")
        }
    }

    /// The examples of the issue and the seeds, as written there (modulo Combine).
    @Test func seedExamplesWorkAsWritten() async throws {
        let service = makeService()
        let tableService = service
        let users = try await service.model([User].self, from: "sys_user", path: "result")
        #expect(users.count >= 100)
        #expect(users.allSatisfy { !$0.sysId.isEmpty && !$0.name.isEmpty })

        let p: Paginator<[User]> = service.paginator(from: "sys_user", path: "result")
        let page = try await p.next()
        #expect(page.count == 20 && p.itemsPerPage == 20)
        #expect(p.numberOfPages == (users.count + 19) / 20)

        let user = User(name: "Ash Williams", email: "ash@s-mart.example", userName: "ash.williams")
        let created = try await service.create(user, in: "sys_user")
        #expect(created.sysId.count == 32 && created.name == "Ash Williams")
        let sysId = created.sysId
        let tableName = "sys_user"
        try await tableService.deleteRecord(sysId: sysId, from: tableName)
        await expectStatus(404) { try await service.record(with: sysId, from: tableName) }
    }

    /// The "Using NowData" example of docs/nowdata.md, against nowsim instead of example.service-now.com.
    @Test func readmeExampleRunsAgainstNowSim() async throws {
        struct User: SysIdentifiableModel, Sendable {
            var sysId: String = ""
            var name: String
            var email: String
        }
        let configuration = NowServiceConfiguration(
            instanceURL: server.baseURL, authentication: .basic(username: "admin", password: "admin"))
        let service = NowTableService(configuration: configuration)

        let active = ReadmeExample.activeUsers
        let users = try await service.model([User].self, from: "sys_user", path: "result", configuration: active)
        #expect(!users.isEmpty && users.count <= 100)

        var created = try await service.create(User(name: "Ash Williams", email: "ash@example.com"), in: "sys_user")
        created.email = "ash@s-mart.example"
        created = try await service.update(created, in: "sys_user")
        #expect(created.email == "ash@s-mart.example")
        try await service.deleteRecord(sysId: created.sysId, from: "sys_user")

        let paginator: Paginator<[User]> = service.paginator(
            from: "sys_user", path: "result", configuration: active, strategy: .keyset())
        let names = try await ReadmeExample.all(paginator).map(\.name)
        let count = try await service.records(
            from: "sys_user",
            configuration: FetchConfiguration(
                filter: Filter(query: "active=true"),
                readConfiguration: FieldReadConfiguration(includeFields: ["sys_id"]))
        ).decodeRecords().count
        #expect(names.count == count && count > 100, "keyset paging in pages of 100 saw every active user")
    }

    // MARK: - Read and write options

    @Test func displayValueModesThroughFieldReadConfiguration() async throws {
        let service = makeService()
        func fetch(_ options: FieldReadConfiguration.Options) async throws -> NowRecord {
            let configuration = FetchConfiguration(
                filter: Filter(query: "number=INC0010001"), limit: 1,
                readConfiguration: FieldReadConfiguration(
                    includeFields: ["sys_id", "caller_id", "priority"], options: options))
            return try await service.records(from: "incident", configuration: configuration)
                .decodeRecord(options: options)
        }
        let stored = try await fetch(.actualValues)
        let shown = try await fetch(.displayValues)
        let both = try await fetch([.actualValues, .displayValues])
        let bare = try await fetch([.actualValues, .excludeReferenceLink])

        let caller = try #require(stored["caller_id"])
        #expect(caller.value?.count == 32 && caller.displayValue == nil)
        #expect(caller.link?.hasSuffix("/api/now/table/sys_user/\(caller.value ?? "-")") == true)
        #expect(stored["priority"]?.value == "4")

        #expect(shown["caller_id"]?.displayValue?.isEmpty == false)
        #expect(shown["caller_id"]?.value == nil)
        #expect(shown["priority"]?.displayValue == "4 - Low")

        #expect(both["caller_id"]?.value == caller.value)
        #expect(both["caller_id"]?.displayValue == shown["caller_id"]?.displayValue)
        #expect(both["caller_id"]?.link == caller.link)
        #expect(both["priority"]?.value == "4" && both["priority"]?.displayValue == "4 - Low")

        #expect(bare["caller_id"]?.value == caller.value && bare["caller_id"]?.link == nil)
    }

    @Test func writeOptions() async throws {
        let service = makeService()
        let fields = FieldReadConfiguration(
            includeFields: ["sys_id", "sys_updated_on", "sys_updated_by", "assigned_to", "priority"])
        let stamped: [FieldName: FieldValue] = [
            "short_description": "Migrated", "sys_updated_on": "2001-02-03 04:05:06", "sys_updated_by": "legacy",
        ]
        let kept = try await service.createRecord(
            with: stamped, in: "problem", writeOptions: .suppressAutoSysField, configuration: fields
        ).decodeRecord()
        #expect(kept["sys_updated_on"]?.value == "2001-02-03 04:05:06")
        #expect(kept["sys_updated_by"]?.value == "legacy")
        let generated = try await service.createRecord(with: stamped, in: "problem", configuration: fields)
            .decodeRecord()
        #expect(generated["sys_updated_on"]?.value != "2001-02-03 04:05:06")

        // Display values in: a user's name for a reference, a choice label for a choice.
        let someone = try await service.records(
            from: "sys_user",
            configuration: FetchConfiguration(
                filter: Filter(query: "active=true^ORDERBYuser_name"), limit: 1,
                readConfiguration: FieldReadConfiguration(includeFields: ["sys_id", "name"]))
        ).decodeRecord()
        let name = try #require(someone["name"]?.value)
        let byDisplay = try await service.createRecord(
            with: ["short_description": "By display", "assigned_to": FieldValue(name), "priority": "1 - Critical"],
            in: "problem", writeOptions: .treatInputValuesAsDisplayValues, configuration: fields
        ).decodeRecord()
        #expect(byDisplay["assigned_to"]?.value == someone.sysId)
        #expect(byDisplay["priority"]?.value == "1")

        for record in [kept, generated, byDisplay] {
            try await service.deleteRecord(sysId: record.sysId, from: "problem")
        }
    }

    // MARK: - Paginators

    @Test func offsetPaginatorWalksAllPagesBothWays() async throws {
        let service = makeService()
        let configuration = FetchConfiguration(
            limit: 20, readConfiguration: FieldReadConfiguration(includeFields: ["sys_id"]))
        let paginator: Paginator<[Row]> = service.paginator(from: "incident", configuration: configuration)
        #expect(paginator.numberOfPages == Int.max)
        paginator.publisherShouldFinish = true
        let publisher = paginator.publisher
        var seen: [String] = []
        while paginator.hasNext {
            seen += try await paginator.next().map(\.sys_id)
        }
        #expect(paginator.numberOfPages == 15)
        #expect(seen.count == Self.incidentCount && Set(seen).count == Self.incidentCount)
        #expect(seen == seen.sorted(), "ORDERBYsys_id is the tie-breaker")
        #expect(paginator.isFinished)
        var published = 0
        for await page in publisher { published += page.count }
        #expect(published == Self.incidentCount)

        let free: Paginator<Data> = service.paginator(from: "incident", configuration: configuration)
        let last = try await free.last()
        #expect(free.page == 14 && !free.hasNext)
        #expect(try last.decodeRecords().map(\.sysId) == Array(seen.suffix(20)))
        let before = try await free.previous()
        #expect(free.page == 13 && free.hasPrevious)
        #expect(try before.decodeRecords().map(\.sysId) == Array(seen.dropLast(20).suffix(20)))
        free.reset()
        #expect(free.page == 0 && free.hasNext && free.numberOfPages == Int.max)
        let again = try await free.first()
        #expect(try again.decodeRecords().map(\.sysId) == Array(seen.prefix(20)))
    }

    @Test func keysetPaginatorGivesEachSysIdOnceInOrder() async throws {
        let service = makeService()
        let configuration = FetchConfiguration(
            limit: 25, readConfiguration: FieldReadConfiguration(includeFields: ["sys_id", "number"]))
        let paginator: Paginator<Data> = service.paginator(
            from: "incident", configuration: configuration, strategy: .keyset())
        var seen: [String] = []
        var pages = 0
        while paginator.hasNext {
            seen += try await paginator.next().decodeRecords().map(\.sysId)
            pages += 1
        }
        #expect(seen.count == Self.incidentCount)
        #expect(Set(seen).count == Self.incidentCount)
        #expect(seen == seen.sorted())
        #expect(pages == 13, "12 full pages, then the empty page that ends the range")
        #expect(paginator.numberOfPages == 13)

        // Partitions cover the table exactly once between them.
        var union: [String] = []
        for range in SysIDRange.partitions(4) {
            let part: Paginator<[Row]> = service.paginator(
                from: "incident", path: "result", configuration: configuration, strategy: .keyset(range: range))
            while part.hasNext { union += try await part.next().map(\.sys_id) }
        }
        #expect(union == seen)
    }

    @Test func shortPagesFromACLsDoNotEndPaging() async throws {
        let service = makeService()
        let fieldsOnly = FieldReadConfiguration(includeFields: ["sys_id"])
        try await server.withFaults(["acl-hide:fraction=0.3,table=incident"]) {
            let visible = try await service.records(
                from: "incident", configuration: FetchConfiguration(limit: 1000, readConfiguration: fieldsOnly)
            ).decodeRecords().map(\.sysId).sorted()
            #expect(visible.count > 150 && visible.count < 260, "about 30% of 300 are hidden")

            let keyset: Paginator<[Row]> = service.paginator(
                from: "incident", path: "result",
                configuration: FetchConfiguration(limit: 20, readConfiguration: fieldsOnly), strategy: .keyset())
            var seen: [String] = []
            var shortPages = 0
            while keyset.hasNext {
                let page = try await keyset.next()
                if !page.isEmpty && page.count < 20 { shortPages += 1 }
                seen += page.map(\.sys_id)
            }
            #expect(seen == visible)
            #expect(shortPages >= 5, "pages came back short and paging went on")

            let offset: Paginator<[Row]> = service.paginator(
                from: "incident", path: "result",
                configuration: FetchConfiguration(limit: 20, readConfiguration: fieldsOnly))
            var byOffset: [String] = []
            while offset.hasNext { byOffset += try await offset.next().map(\.sys_id) }
            #expect(offset.numberOfPages == 15, "the page count comes from X-Total-Count")
            #expect(byOffset == visible)
        }
    }

    // MARK: - OAuth

    @Test func oauthPasswordGrantThenRefreshTokenGrant() async throws {
        let events = Recorder<TransportEvent>()
        // A leeway longer than the token lifetime makes every use refresh it.
        let credentials = OAuth2Credentials(
            clientID: "nowsim", clientSecret: "nowsim", grant: .password(username: "admin", password: "admin"),
            refreshLeeway: 3600)
        let service = makeService(authentication: .oauth2(credentials), events: events)
        _ = try await service.records(from: "incident", configuration: FetchConfiguration(limit: 1))
        _ = try await service.records(from: "incident", configuration: FetchConfiguration(limit: 1))
        #expect(Self.grants(events) == ["password", "refresh_token"])

        let steady = Recorder<TransportEvent>()
        let reusing = makeService(
            authentication: .oauth2(
                OAuth2Credentials(
                    clientID: "nowsim", clientSecret: "nowsim", grant: .password(username: "admin", password: "admin"))),
            events: steady)
        for _ in 0..<3 { _ = try await reusing.records(from: "incident", configuration: FetchConfiguration(limit: 1)) }
        #expect(Self.grants(steady) == ["password"], "a valid token is reused")
    }

    @Test func oauthClientCredentialsAndRefreshTokenGrants() async throws {
        let events = Recorder<TransportEvent>()
        let client = makeService(
            authentication: .oauth2(
                OAuth2Credentials(clientID: "nowsim", clientSecret: "nowsim", grant: .clientCredentials)),
            events: events)
        let data = try await client.records(from: "incident", configuration: FetchConfiguration(limit: 2))
        #expect(try data.decodeRecords().count == 2)
        #expect(Self.grants(events) == ["client_credentials"])

        let refreshToken = try await passwordGrantRefreshToken()
        let refreshing = makeService(
            authentication: .oauth2(
                OAuth2Credentials(clientID: "nowsim", clientSecret: "nowsim", grant: .refreshToken(refreshToken))))
        #expect(try await refreshing.records(from: "incident", configuration: FetchConfiguration(limit: 1)).count > 0)
    }

    @Test func oauthWrongClientSecretIsRejected() async throws {
        let service = makeService(
            authentication: .oauth2(
                OAuth2Credentials(
                    clientID: "nowsim", clientSecret: "wrong-secret",
                    grant: .password(username: "admin", password: "admin"))))
        let error = await TestService.failure {
            try await withDeadline(60) {
                try await service.records(from: "incident", configuration: FetchConfiguration(limit: 1))
            }
        }
        guard case .accessToken(.tokenRequestRejected(401, let code, let text))? = error as? NowDataError else {
            Issue.record("expected a rejected token request, got \(String(describing: error))")
            return
        }
        #expect(code == "server_error" && text == "access_denied")
        #expect(!"\(error!)".contains("wrong-secret"))
    }

    @Test func bearerTokenIsRefreshedOnceWhenTheInstanceAnswers401() async throws {
        let refreshToken = try await passwordGrantRefreshToken()
        let provider = StaleThenFresh(server: server, refreshToken: refreshToken)
        let service = makeService(authentication: .bearerToken(provider))
        let data = try await withDeadline(60) {
            try await service.records(from: "incident", configuration: FetchConfiguration(limit: 1))
        }
        #expect(try data.decodeRecords().count == 1)
        #expect(provider.calls.values == [false, true])
    }

    // MARK: - Errors

    @Test func unauthorizedBasicAndBearerEndPromptly() async throws {
        let wrongPassword = makeService(authentication: .basic(username: "admin", password: "not-the-password"))
        let basic = await TestService.failure {
            try await withDeadline(60) { try await wrongPassword.records(from: "incident") }
        }
        guard case .badResponse(401, let context)? = basic as? NowDataError else {
            Issue.record("expected 401, got \(String(describing: basic))")
            return
        }
        #expect(context.message == "User Not Authenticated")
        #expect(context.detail == "Required to provide Auth information")
        #expect(!"\(basic!)".contains("not-the-password"))

        let nope = makeService(authentication: .bearerToken(FixedToken(token: "nope")))
        let bearer = await TestService.failure {
            try await withDeadline(60) { try await nope.records(from: "incident") }
        }
        #expect((bearer as? NowDataError)?.statusCode == 401)
    }

    @Test func forbiddenNotFoundAndInvalidTable() async throws {
        let reader = makeService(authentication: .basic(username: "reader", password: "pw"))
        let readable = try await reader.records(from: "incident", configuration: FetchConfiguration(limit: 1))
        #expect(try readable.decodeRecords().count == 1)
        let forbidden = await TestService.failure {
            try await reader.createRecord(with: ["short_description": "not allowed"], in: "problem")
        }
        guard case .badResponse(403, let context)? = forbidden as? NowDataError else {
            Issue.record("expected 403, got \(String(describing: forbidden))")
            return
        }
        #expect(context.message != nil && context.table == "problem" && context.method == "POST")
        #expect((forbidden as? NowDataError)?.isTransient == false)

        let service = makeService()
        let missing = await TestService.failure {
            try await service.record(with: String(repeating: "0", count: 32), from: "incident")
        }
        #expect((missing as? NowDataError)?.statusCode == 404)
        #expect((missing as? NowDataError)?.context?.message == "No Record found")

        let invalid = await TestService.failure { try await service.records(from: "nope") }
        #expect((invalid as? NowDataError)?.statusCode == 400)
        #expect((invalid as? NowDataError)?.context?.message == "Invalid table nope")
        #expect((invalid as? NowDataError)?.context?.detail == "Table nope does not exist")
    }

    @Test func rateLimitRetryAfterIsHonouredExactly() async throws {
        let events = Recorder<TransportEvent>()
        let service = makeService(events: events)
        try await server.withFaults(["rate-limit:every=2,retry-after=1,table=incident"]) {
            let started = Date()
            let data = try await service.records(from: "incident", configuration: FetchConfiguration(limit: 1))
            #expect(try data.decodeRecords().count == 1)
            #expect(Date().timeIntervalSince(started) >= 1)
            let delays = events.values.compactMap { event -> Double? in
                if case .retry(_, _, _, let delay, let reason) = event, reason == "HTTP 429" { return delay }
                return nil
            }
            #expect(delays == [1])

            // A caller that will not wait that long gets the delay in the error.
            let impatient = makeService(policy: RetryPolicy(maximumRetryAfter: 0.5))
            let error = await TestService.failure {
                try await impatient.records(from: "incident", configuration: FetchConfiguration(limit: 1))
            }
            guard case .badResponse(429, let context)? = error as? NowDataError else {
                Issue.record("expected 429, got \(String(describing: error))")
                return
            }
            #expect(context.retryAfter == 1 && context.message == "Rate limit exceeded")
            #expect((error as? NowDataError)?.isTransient == true)
        }
    }

    @Test func badGatewayHTMLIsReportedAndRetried() async throws {
        try await server.withFaults(["status:code=502,table=incident"]) {
            let once = makeService(policy: .none)
            let error = await TestService.failure { try await once.records(from: "incident") }
            guard case .badResponse(502, let context)? = error as? NowDataError else {
                Issue.record("expected 502, got \(String(describing: error))")
                return
            }
            #expect(context.bodyPrefix?.hasPrefix("<html><head><title>502</title>") == true)
            #expect(context.message == nil && (error as? NowDataError)?.isTransient == true)
        }
        try await server.withFaults(["status:code=502,every=2,table=incident"]) {
            let events = Recorder<TransportEvent>()
            let retrying = makeService(
                policy: RetryPolicy(initialBackoff: 0.01, maximumBackoff: 0.05), events: events)
            let data = try await retrying.records(from: "incident", configuration: FetchConfiguration(limit: 3))
            #expect(try data.decodeRecords().count == 3)
            #expect(events.values.count == 1)
        }
    }

    @Test func cancelledTransactionIsAnErrorNeverAShortPage() async throws {
        try await server.withFaults(["truncate:table=incident"]) {
            let service = makeService(policy: .none)
            let error = await TestService.failure {
                try await service.records(from: "incident", configuration: FetchConfiguration(limit: 5))
            }
            guard case .transactionCancelled(let context)? = error as? NowDataError else {
                Issue.record("expected transactionCancelled, got \(String(describing: error))")
                return
            }
            #expect(context.message?.contains("maximum execution time exceeded") == true)
            #expect(context.statusCode == 200)

            let paginator: Paginator<[Row]> = service.paginator(
                from: "incident", path: "result", configuration: FetchConfiguration(limit: 5), strategy: .keyset())
            let pageError = await TestService.failure { try await paginator.next() }
            guard case .fetchFailed(.transactionCancelled)? = pageError as? PaginationError else {
                Issue.record("expected fetchFailed(transactionCancelled), got \(String(describing: pageError))")
                return
            }
            #expect(paginator.hasNext, "the paginator did not take the cut page as the end")
        }
    }

    @Test func slowAnswerTimesOut() async throws {
        // nowsim answers after 20 s, far beyond the 1 s timeout: a timeout error proves the timeout fired.
        try await server.withFaults(["delay:ms=20000,table=incident"]) {
            let service = makeService(timeout: 1, policy: .none)
            let error = await TestService.failure {
                try await withDeadline(60) {
                    try await service.records(from: "incident", configuration: FetchConfiguration(limit: 1))
                }
            }
            guard case .network(let network)? = error as? NowDataError else {
                Issue.record("expected a network timeout, got \(String(describing: error))")
                return
            }
            #expect(network.isTimeout && network.isTransient, "ended by the 1 s timeout, not by nowsim's answer")
        }
    }

    // MARK: - Helpers

    @Test func countsThroughTheAggregateAPI() async throws {
        let service = makeService()
        // Other tests of this suite insert incidents, so compare with the Table API rather than the seed.
        let all = try await service.count(from: "incident")
        let everything = try await service.records(
            from: "incident",
            configuration: FetchConfiguration(readConfiguration: FieldReadConfiguration(includeFields: ["sys_id"])))
        #expect(
            all.count
                == ((try JSONSerialization.jsonObject(with: everything) as? [String: Any])?["result"] as? [Any])?.count)
        #expect(all.count >= 300)
        #expect(all.attempts == 1)
        let active = try await service.count(from: "incident", filter: Filter(query: "active=true"))
        let listed = try await service.records(
            from: "incident",
            configuration: FetchConfiguration(
                filter: Filter(query: "active=true"),
                readConfiguration: FieldReadConfiguration(includeFields: ["sys_id"])))
        let rows = (try JSONSerialization.jsonObject(with: listed) as? [String: Any])?["result"] as? [Any]
        #expect(active.count == rows?.count)
        #expect(active.count > 0 && active.count < 300)
        await #expect(throws: NowDataError.self) { try await service.count(from: "u_missing") }
    }

    func makeService(
        authentication: Authentication = .basic(username: "admin", password: "admin"), timeout: TimeInterval = 10,
        policy: RetryPolicy = RetryPolicy(initialBackoff: 0.05, maximumBackoff: 0.2),
        events: Recorder<TransportEvent>? = nil
    ) -> NowTableService {
        var handler: (@Sendable (TransportEvent) -> Void)?
        if let events { handler = { events.append($0) } }
        return NowTableService(
            configuration: NowServiceConfiguration(
                instanceURL: server.baseURL, authentication: authentication, requestTimeout: timeout,
                retryPolicy: policy, eventHandler: handler))
    }

    /// A refresh token from a password grant, fetched directly from `/oauth_token.do`.
    func passwordGrantRefreshToken() async throws -> String {
        var request = URLRequest(url: server.baseURL.appendingPathComponent("oauth_token.do"))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(
            "grant_type=password&client_id=nowsim&client_secret=nowsim&username=admin&password=admin".utf8)
        let (data, _) = try await URLSession.shared.data(for: request)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return try #require(object?["refresh_token"] as? String)
    }

    static func grants(_ events: Recorder<TransportEvent>) -> [String] {
        events.values.compactMap { event in
            if case .tokenRefreshed(let grant) = event { return grant }
            return nil
        }
    }

    /// Expects the operation to fail with `status`.
    func expectStatus<Value>(
        _ status: Int, sourceLocation: SourceLocation = #_sourceLocation, _ operation: () async throws -> Value
    ) async {
        let error = await TestService.failure(operation)
        #expect((error as? NowDataError)?.statusCode == status, sourceLocation: sourceLocation)
    }

    /// Calls a completion-handler method and waits for its result.
    static func completion<Value: Sendable>(
        _ start: (@escaping @Sendable (Result<Value, NowDataError>) -> Void) -> Void
    ) async -> Result<Value, NowDataError> {
        await withCheckedContinuation { continuation in
            start { continuation.resume(returning: $0) }
        }
    }

    /// Always the same token.
    struct FixedToken: AccessTokenProvider {
        var token: String
        func accessToken(forceRefresh: Bool) async throws(AccessTokenProviderError) -> String { token }
    }

    /// A stale token first; on `forceRefresh`, a real one from nowsim's refresh grant.
    final class StaleThenFresh: AccessTokenProvider, @unchecked Sendable {
        let calls = Recorder<Bool>()
        let baseURL: URL
        let refreshToken: String

        init(server: NowSimInstance, refreshToken: String) {
            baseURL = server.baseURL
            self.refreshToken = refreshToken
        }

        func accessToken(forceRefresh: Bool) async throws(AccessTokenProviderError) -> String {
            calls.append(forceRefresh)
            guard forceRefresh else { return "stale-token" }
            var request = URLRequest(url: baseURL.appendingPathComponent("oauth_token.do"))
            request.httpMethod = "POST"
            request.httpBody = Data(
                "grant_type=refresh_token&client_id=nowsim&client_secret=nowsim&refresh_token=\(refreshToken)".utf8)
            do {
                let (data, _) = try await URLSession.shared.data(for: request)
                let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
                guard let token = object?["access_token"] as? String else {
                    throw AccessTokenProviderError.invalidTokenResponse
                }
                return token
            } catch {
                throw .userSessionError(error)
            }
        }
    }
}

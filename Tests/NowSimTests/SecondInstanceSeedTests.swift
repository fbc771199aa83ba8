import Foundation
import NowSimTesting
import Testing

/// `--sys-id-salt`: a second instance seeded with the same seed value holds the same users and groups
/// — names and every other value — under sys_ids of its own, as a migration target already in use
/// holds the people of its source (docs/table-api.md §11).
@Suite(.timeLimit(.minutes(5))) struct SecondInstanceSeedTests {
    /// The fields compared between the two instances; references as display values.
    static let userFields = "sys_id,user_name,first_name,last_name,name,email,title,company,location,manager,active"

    private func users(_ sim: NowSimInstance) async throws -> [[String: String]] {
        try await sim.request(
            "/api/now/table/sys_user",
            query: [
                ("sysparm_query", "user_name!=admin^ORDERBYemployee_number"), ("sysparm_fields", Self.userFields),
                ("sysparm_display_value", "true"), ("sysparm_exclude_reference_link", "true"),
                ("sysparm_limit", "1000"),
            ]
        ).resultList.map { $0.compactMapValues { $0 as? String } }
    }

    private func groups(_ sim: NowSimInstance) async throws -> [[String: String]] {
        try await sim.request(
            "/api/now/table/sys_user_group",
            query: [("sysparm_fields", "sys_id,name,description,email"), ("sysparm_limit", "1000")]
        ).resultList.map { $0.compactMapValues { $0 as? String } }
    }

    @Test func theSaltedInstanceHasTheSourcesNamesUnderOtherSysIDs() async throws {
        try await withNowSim(arguments: ["--seed", "incident=5,sys_user=60,sys_user_group=12", "--seed-value", "7"]) {
            source in
            try await withNowSim(
                arguments: ["--seed", "sys_user=40,sys_user_group=12", "--seed-value", "7", "--sys-id-salt", "target"]
            ) { target in
                let sourceUsers = try await users(source)
                let targetUsers = try await users(target)
                #expect(sourceUsers.count == 60)
                #expect(targetUsers.count == 40)
                // The target's 40 users are the source's first 40: same user names and values…
                let strip = { (user: [String: String]) in user.filter { $0.key != "sys_id" && $0.key != "manager" } }
                #expect(targetUsers.map(strip) == sourceUsers.prefix(40).map(strip))
                #expect(targetUsers.compactMap { $0["user_name"] }.count == 40)
                // …under other sys_ids.
                let sourceIDs = Set(sourceUsers.compactMap { $0["sys_id"] })
                #expect(targetUsers.allSatisfy { ($0["sys_id"]).map { !sourceIDs.contains($0) } ?? false })

                let sourceGroups = try await groups(source)
                let targetGroups = try await groups(target)
                #expect(targetGroups.count == 12)
                #expect(targetGroups.map { $0["name"] } == sourceGroups.map { $0["name"] })
                // Only the names: members and the values drawn after them depend on how many users
                // there are to pick from (40 here, 60 in the source).
                let sourceGroupIDs = Set(sourceGroups.compactMap { $0["sys_id"] })
                #expect(targetGroups.allSatisfy { ($0["sys_id"]).map { !sourceGroupIDs.contains($0) } ?? false })
            }
        }
    }

    @Test func withoutASaltTheSameSeedGivesTheSameSysIDs() async throws {
        let arguments = ["--seed", "sys_user=10,sys_user_group=3", "--seed-value", "7"]
        try await withNowSim(arguments: arguments) { first in
            try await withNowSim(arguments: arguments) { second in
                let firstUsers = try await users(first)
                let secondUsers = try await users(second)
                #expect(firstUsers == secondUsers)
                let firstGroups = try await groups(first)
                let secondGroups = try await groups(second)
                #expect(firstGroups == secondGroups)
            }
        }
    }
}

/// The rows seeded data may refer to: sys_ids of existing companies, locations, users, groups,
/// configuration items, problems and changes, kept in insertion order so picks are deterministic.
struct SeedPools {
    var companies: [String] = []
    var manufacturers: [String] = []
    var locations: [String] = []
    var users: [String] = []
    var userNames: [String] = []
    var userCompanies: [String?] = []
    var userLocations: [String?] = []
    var userIndex: [String: Int] = [:]
    var usedUserNames: Set<String> = []
    var groups: [String] = []
    var groupIndex: [String: Int] = [:]
    /// Per group, the indexes (into `users`) of its members.
    var groupMembers: [[Int]] = []
    var cis: [String] = []
    var problems: [String] = []
    var changes: [String] = []

    mutating func addUser(sysID: String, userName: String, company: String?, location: String?) {
        userIndex[sysID] = users.count
        users.append(sysID)
        userNames.append(userName)
        userCompanies.append(company)
        userLocations.append(location)
        usedUserNames.insert(userName)
    }

    mutating func addGroup(_ sysID: String) {
        groupIndex[sysID] = groups.count
        groups.append(sysID)
        groupMembers.append([])
    }

    /// A random user index, or `nil` when there are no users.
    func randomUser(_ random: inout SeedRandom) -> Int? {
        users.isEmpty ? nil : random.below(users.count)
    }

    /// A member of `group` when it has members, else any user.
    func randomMember(of group: Int?, _ random: inout SeedRandom) -> Int? {
        if let group, !groupMembers[group].isEmpty { return random.pick(groupMembers[group]) }
        return randomUser(&random)
    }

    /// A random element of `pool`, or `nil` when it is empty.
    static func pick(_ pool: [String], _ random: inout SeedRandom) -> String? {
        pool.isEmpty ? nil : pool[random.below(pool.count)]
    }
}

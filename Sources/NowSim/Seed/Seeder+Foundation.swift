import NowQuery

extension Seeder {
    /// Seconds before the window when foundation data was "created" (up to two years earlier).
    private static let foundationSpan = 2 * 365 * 86_400

    /// A creation time for foundation data and a later update time.
    private func foundationTimes(_ random: inout SeedRandom) -> (created: Int, updated: Int) {
        let created = Self.windowStart - Self.foundationSpan + random.below(Self.foundationSpan)
        let updated = random.percent(40) ? created : created + random.below(Self.windowEnd - created)
        return (created, updated)
    }

    /// Draws a foundation record's sys_id and times and writes its system fields: created by admin
    /// before the window (``foundationTimes(_:)``), updated by `updatedBy` (drawn after the times) and
    /// changed up to `mostChanges` times when it was updated at all. Returns the sys_id and creation time.
    private func writeFoundationFields(
        _ writer: inout RowWriter, _ system: SystemFieldSlots, _ random: inout SeedRandom, className: String,
        mostChanges: Int, updatedBy: (inout SeedRandom) -> String = { _ in "admin" }
    ) -> (id: SysIDBits, created: Int) {
        let id = random.sysID()
        let times = foundationTimes(&random)
        let updater = updatedBy(&random)
        system.write(
            to: &writer, sysID: id, className: className, created: times.created, createdBy: "admin",
            updated: times.updated, updatedBy: updater,
            modCount: times.updated == times.created ? 0 : random.between(1...mostChanges))
        return (id, times.created)
    }

    /// Decimal text with `places` fraction digits (`-12.345600` for places 6).
    static func decimalText(_ value: Double, places: Int) -> String {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = Int((abs(value) * scale).rounded())
        var divisor = 1
        for _ in 0..<places { divisor *= 10 }
        var fraction = String(scaled % divisor)
        while fraction.count < places { fraction = "0" + fraction }
        return (value < 0 && scaled != 0 ? "-" : "") + String(scaled / divisor) + (places > 0 ? "." + fraction : "")
    }

    func seedCompanies(_ count: Int) throws {
        let vocabulary = SeedVocabulary.companies
        try seedRows("core_company", count: count, after: pools.companies.count) { writer, random, system, index in
            let company = vocabulary[index % vocabulary.count]
            let round = index / vocabulary.count
            let name = round == 0 ? company.name : "\(company.name) \(round + 1)"
            let city = random.pick(SeedVocabulary.cities)
            let (id, created) = writeFoundationFields(
                &writer, system, &random, className: "core_company", mostChanges: 5)
            writer.set(column: "name", name)
            writer.set(column: "street", "\(random.between(1...999)) \(city.street)")
            writer.set(column: "city", city.city)
            writer.set(column: "state", city.state)
            writer.set(column: "zip", random.percent(90) ? String(random.between(10_000...99_999)) : nil)
            writer.set(column: "country", city.country)
            writer.set(column: "phone", "+1 555 01\(random.between(10...99))")
            if random.percent(30) { writer.set(column: "fax_phone", "+1 555 02\(random.between(10...99))") }
            let slug = name.lowercased().filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
            if !slug.isEmpty { writer.set(column: "website", "https://www.\(slug).example.com") }
            writer.set(column: "stock_symbol", company.stockSymbol)
            if company.stockSymbol != nil {
                writer.set(
                    column: "stock_price", Self.decimalText(Double(random.between(500...90_000)) / 100, places: 2))
            }
            writer.set(column: "num_employees", String(random.between(5...250_000)))
            writer.set(column: "customer", random.percent(40) ? "true" : "false")
            writer.set(column: "vendor", company.manufacturer || random.percent(20) ? "true" : "false")
            writer.set(column: "manufacturer", company.manufacturer ? "true" : "false")
            if index > 0, random.percent(10), let parent = SeedPools.pick(pools.companies, &random) {
                writer.set(column: "parent", parent)
            }
            if random.percent(15) { writer.set(column: "notes", SeedTexts.awkward(index)) }
            let sysID = id.string
            pools.companies.append(sysID)
            if company.manufacturer { pools.manufacturers.append(sysID) }
        }
    }

    func seedLocations(_ count: Int) throws {
        try seedRows("cmn_location", count: count, after: pools.locations.count) { writer, random, system, index in
            let city = SeedVocabulary.cities[index % SeedVocabulary.cities.count]
            let street = "\(random.between(1...2000)) \(city.street)"
            let name = "\(street), \(city.city)"
            let (id, created) = writeFoundationFields(
                &writer, system, &random, className: "cmn_location", mostChanges: 3)
            writer.set(column: "name", name)
            writer.set(column: "full_name", "\(city.country)/\(city.state)/\(name)")
            writer.set(column: "street", street)
            writer.set(column: "city", city.city)
            writer.set(column: "state", city.state)
            writer.set(column: "zip", random.percent(85) ? String(random.between(10_000...99_999)) : nil)
            writer.set(column: "country", city.country)
            let jitter = { (random: inout SeedRandom) in Double(random.between(-5000...5000)) / 100_000 }
            writer.set(column: "latitude", Self.decimalText(city.latitude + jitter(&random), places: 6))
            writer.set(column: "longitude", Self.decimalText(city.longitude + jitter(&random), places: 6))
            if random.percent(60) { writer.set(column: "phone", "+1 555 03\(random.between(10...99))") }
            writer.set(column: "time_zone", city.timeZone)
            if random.percent(80) { writer.set(column: "company", SeedPools.pick(pools.companies, &random)) }
            if index >= SeedVocabulary.cities.count, random.percent(20) {
                writer.set(column: "parent", SeedPools.pick(pools.locations, &random))
            }
            pools.locations.append(id.string)
        }
    }

    func seedUsers(_ count: Int) throws {
        let firstUser = pools.users.count
        try seedRows("sys_user", count: count, after: pools.users.count) { writer, random, system, index in
            let first = random.pick(SeedVocabulary.firstNames)
            let last = random.pick(SeedVocabulary.lastNames)
            var userName = "\(first.ascii).\(last.ascii)".lowercased()
            if pools.usedUserNames.contains(userName) {
                var suffix = 2
                while pools.usedUserNames.contains("\(userName)\(suffix)") { suffix += 1 }
                userName += String(suffix)
            }
            let company = SeedPools.pick(pools.companies, &random)
            let location = random.percent(92) ? SeedPools.pick(pools.locations, &random) : nil
            let city = random.pick(SeedVocabulary.cities)
            let (id, created) = writeFoundationFields(
                &writer, system, &random, className: "sys_user", mostChanges: 40,
                updatedBy: { $0.percent(70) ? "admin" : userName })
            writer.set(column: "user_name", userName)
            writer.set(column: "first_name", first.display)
            writer.set(column: "last_name", last.display)
            writer.set(column: "name", "\(first.display) \(last.display)")
            if random.percent(97) { writer.set(column: "email", "\(userName)@example.com") }
            writer.set(column: "title", random.percent(90) ? random.pick(SeedVocabulary.titles) : nil)
            writer.set(column: "employee_number", "E\(100_000 + firstUser + index)")
            if random.percent(80) { writer.set(column: "phone", "+1 555 1\(random.between(100...999))") }
            if random.percent(50) { writer.set(column: "mobile_phone", "+1 555 2\(random.between(100...999))") }
            writer.set(column: "company", company)
            writer.set(column: "location", location)
            if index > 0, random.percent(80) {
                // Managers are among the earlier users, so the hierarchy has no cycles.
                writer.set(column: "manager", pools.users[firstUser + random.below(min(index, max(1, count / 5)))])
            }
            writer.set(column: "active", random.percent(96) ? "true" : "false")
            writer.set(column: "locked_out", random.percent(1) ? "true" : "false")
            writer.set(column: "vip", random.percent(4) ? "true" : "false")
            writer.set(column: "web_service_access_only", "false")
            writer.set(column: "internal_integration_user", "false")
            writer.set(column: "time_zone", city.timeZone)
            writer.set(column: "preferred_language", city.language)
            if random.percent(70) {
                writer.set(
                    column: "last_login_time",
                    TableAPIDateFormat.string(fromSeconds: created + random.below(Self.windowEnd - created))
                )
            }
            writer.set(column: "notification", "2")
            pools.addUser(sysID: id.string, userName: userName, company: company, location: location)
        }
    }

    func seedGroups(_ count: Int) throws {
        var random = randomStream("sys_user_group", after: pools.groups.count)
        var writer = try makeWriter(for: "sys_user_group")
        var members = try makeWriter(for: "sys_user_grmember")
        let system = SystemFieldSlots(writer)
        let memberSystem = SystemFieldSlots(members)
        let userSlot = members.requiredSlot("user")
        let groupSlot = members.requiredSlot("group")
        let firstGroup = pools.groups.count
        var memberRows = 0
        for index in 0..<count {
            let names = SeedVocabulary.groupNames
            let round = (firstGroup + index) / names.count
            let name = names[(firstGroup + index) % names.count] + (round == 0 ? "" : " \(round + 1)")
            let (id, created) = writeFoundationFields(
                &writer, system, &random, className: "sys_user_group", mostChanges: 8)
            writer.set(column: "name", name)
            writer.set(column: "description", random.percent(70) ? "Handles \(name) requests and incidents." : nil)
            if let manager = pools.randomUser(&random) { writer.set(column: "manager", pools.users[manager]) }
            let slug = name.lowercased().filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
            if !slug.isEmpty, random.percent(80) { writer.set(column: "email", "\(slug)@example.com") }
            writer.set(column: "active", random.percent(95) ? "true" : "false")
            if index > 0, random.percent(10) {
                writer.set(column: "parent", pools.groups[firstGroup + random.below(index)])
            }
            try writer.insert()
            let sysID = id.string
            pools.addGroup(sysID)

            // Members: 4–15 distinct users.
            guard !pools.users.isEmpty else { continue }
            let wanted = min(pools.users.count, random.between(4...15))
            var chosen: [Int] = []
            while chosen.count < wanted {
                let user = random.below(pools.users.count)
                if !chosen.contains(user) { chosen.append(user) }
            }
            for user in chosen {
                memberSystem.write(
                    to: &members, sysID: random.sysID(), className: "sys_user_grmember", created: created,
                    createdBy: "admin", updated: created, updatedBy: "admin", modCount: 0)
                members.set(userSlot, pools.users[user])
                members.set(groupSlot, sysID)
                try members.insert()
            }
            pools.groupMembers[firstGroup + index] = chosen
            memberRows += chosen.count
            tick("sys_user_group", index + 1)
        }
        record("sys_user_group", rows: count)
        record("sys_user_grmember", rows: memberRows)
    }
}

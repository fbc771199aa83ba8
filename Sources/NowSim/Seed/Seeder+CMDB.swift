import NowQuery

extension Seeder {
    /// Seeds configuration items: plain `cmdb_ci` rows or `cmdb_ci_server` rows (stored in `cmdb_ci`).
    func seedConfigurationItems(_ count: Int, servers: Bool) throws {
        let className = servers ? "cmdb_ci_server" : "cmdb_ci"
        let firstCI = pools.cis.count
        try seedRows(className, into: "cmdb_ci", count: count, after: pools.cis.count) {
            writer, random, system, index in
            let id = random.sysID()
            let created = Self.windowStart - 365 * 86_400 + random.below(3 * 365 * 86_400)
            let updated = created + random.below(Self.windowEnd - created)
            let assignedTo = random.percent(75) ? pools.randomUser(&random) : nil
            system.write(
                to: &writer, sysID: id, className: className, created: created, createdBy: "admin", updated: updated,
                updatedBy: random.percent(50) ? "discovery" : (assignedTo.map { pools.userNames[$0] } ?? "admin"),
                modCount: random.between(0...60))

            let host = Self.serverName(firstCI + index, &random)
            if servers {
                let os = random.pick(SeedVocabulary.osVersions)
                writer.set(column: "name", host)
                writer.set(column: "host_name", host)
                writer.set(column: "fqdn", random.percent(90) ? "\(host).example.com" : nil)
                writer.set(
                    column: "ip_address",
                    "10.\(random.below(256)).\(random.below(256)).\(random.between(1...254))")
                writer.set(column: "os", os.os)
                writer.set(column: "os_version", random.pick(os.versions))
                writer.set(column: "cpu_count", String(random.pick([2, 4, 8, 16, 32, 64])))
                writer.set(column: "cpu_speed", String(random.pick([2100, 2400, 2600, 3000, 3400])))
                writer.set(column: "ram", String(random.pick([4096, 8192, 16_384, 32_768, 65_536, 262_144])))
                writer.set(column: "disk_space", Self.decimalText(Double(random.between(40...8000)) + 0.5, places: 2))
                writer.set(column: "virtual", random.percent(70) ? "true" : "false")
                writer.set(
                    column: "classification",
                    random.pick(["Production", "Production", "Production", "Development", "Test", "QA"]))
                writer.set(column: "category", "Hardware")
            } else {
                let base = random.pick(SeedVocabulary.ciNames)
                writer.set(column: "name", "\(base) \(firstCI + index + 1)")
                writer.set(column: "category", random.pick(SeedVocabulary.ciCategories))
                if random.percent(10) { writer.set(column: "short_description", SeedTexts.awkward(index)) }
            }
            writer.set(column: "asset_tag", random.percent(85) ? "P\(1_000_000 + firstCI + index)" : nil)
            writer.set(column: "serial_number", random.percent(90) ? Self.serialNumber(&random) : nil)
            writer.set(column: "model_number", random.percent(60) ? "M-\(random.between(100...9999))" : nil)
            let operational = random.weighted([85, 5, 3, 2, 3, 2])
            writer.set(column: "operational_status", String(operational + 1))
            writer.set(
                column: "install_status", operational == 5 ? "7" : ["1", "1", "1", "1", "3", "6"][random.below(6)])
            writer.set(column: "company", random.percent(90) ? SeedPools.pick(pools.companies, &random) : nil)
            writer.set(column: "location", random.percent(85) ? SeedPools.pick(pools.locations, &random) : nil)
            writer.set(column: "assigned_to", assignedTo.map { pools.users[$0] })
            if random.percent(60), let user = pools.randomUser(&random) {
                writer.set(column: "managed_by", pools.users[user])
            }
            if random.percent(50), let user = pools.randomUser(&random) {
                writer.set(column: "owned_by", pools.users[user])
            }
            if random.percent(90) { writer.set(column: "support_group", SeedPools.pick(pools.groups, &random)) }
            let makers = pools.manufacturers.isEmpty ? pools.companies : pools.manufacturers
            if random.percent(85) { writer.set(column: "manufacturer", SeedPools.pick(makers, &random)) }
            if random.percent(80) {
                writer.set(column: "cost", Self.decimalText(Double(random.between(1_000...5_000_000)) / 100, places: 2))
            }
            let purchased = created - random.below(180 * 86_400)
            if random.percent(80) {
                writer.set(column: "purchase_date", TableAPIDateFormat.dateString(fromSeconds: purchased))
                writer.set(
                    column: "warranty_expiration",
                    TableAPIDateFormat.dateString(fromSeconds: purchased + random.pick([1, 3, 5]) * 365 * 86_400))
            }
            writer.set(column: "install_date", TableAPIDateFormat.string(fromSeconds: created))
            pools.cis.append(id.string)
        }
    }

    /// A unique server name such as `lnux214` or `sql-prod-377` (the ordinal makes it unique).
    private static func serverName(_ ordinal: Int, _ random: inout SeedRandom) -> String {
        let number = ordinal + 100
        switch random.below(4) {
        case 0: return "lnux\(number)"
        case 1: return "win-app-\(number)"
        case 2: return "sql-prod-\(number)"
        default: return "ora\(number)db"
        }
    }

    private static func serialNumber(_ random: inout SeedRandom) -> String {
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZ0123456789")
        return String((0..<10).map { _ in random.pick(alphabet) })
    }
}

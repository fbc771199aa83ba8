import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// `choice_labels: true` into MariaDB: `incident__choices` read back with the `mariadb` client (text as
/// hex, so the awkward label's tab and backslash survive the client's batch form) and compared with what
/// nowsim's Table API says `sys_choice` holds (``ChoiceLabelsEndToEnd``).
@Suite(.serialized, .timeLimit(.minutes(8))) struct SinkMariaDBChoiceLabelsTests {
    /// The text of a `HEX()` column, `nil` for the client's `NULL`.
    static func unhex(_ text: Substring) -> String? {
        guard text != "NULL" else { return nil }
        var bytes: [UInt8] = []
        var index = text.startIndex
        while let next = text.index(index, offsetBy: 2, limitedBy: text.endIndex), index != text.endIndex {
            guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The first run loads exactly the active choices that apply to incident and a BI join finds a label
    /// for every incident; a table of another shape is replaced by the next run (staged, swapped after the
    /// COMMIT), and a choice made inactive since is gone; the third run replaces the rows in place.
    @Test func theChoicesTableHoldsTheInstancesActiveChoicesAndIsReplacedEachRun() async throws {
        try await withMariaDBDatabase { database in
            try await DatabaseEndToEnd.withSimRun(incidents: 40, seedValue: 5, "mariadbChoices") { sim, directory in
                try await ChoiceLabelsEndToEnd.addChoices(sim)
                try DatabaseEndToEnd.writePipeline(
                    sim, tableKeys: ["fields: [sys_id, number, state, priority]", "choice_labels: true"],
                    outputs: ["mysql: { url: \"\(database.url)\", password: \"${MYSQL_PASSWORD}\" }"], in: directory)
                func loaded() async throws -> [ChoiceLabelsEndToEnd.Choice] {
                    let text = try await database.sql(
                        "SELECT HEX(element), HEX(value), HEX(label), HEX(language), sequence, HEX(dependent_value) "
                            + "FROM incident__choices")
                    return text.split(separator: "\n").map { line in
                        let cells = line.split(separator: "\t", omittingEmptySubsequences: false)
                        func cell(_ index: Int) -> String? { index < cells.count ? Self.unhex(cells[index]) : nil }
                        var row: [String: Any] = [:]
                        for (index, key) in ["element", "value", "label", "language"].enumerated() {
                            row[key] = cell(index)
                        }
                        if cells.count > 4, let sequence = Int(cells[4]) { row["sequence"] = sequence }
                        row["dependent_value"] = cell(5)
                        return ChoiceLabelsEndToEnd.Choice(json: row)
                    }.sorted()
                }
                let environment = ["MYSQL_PASSWORD": database.password]
                let run = { try await DatabaseEndToEnd.run(directory, environment: environment, timeout: 240) }
                try await ChoiceLabelsEndToEnd.firstRun(sim, run: run, loaded: loaded)
                try await ChoiceLabelsEndToEnd.laterRuns(
                    sim, query: database.sql, schema: "", state: "i.state", keyType: "VARCHAR(40)", run: run,
                    loaded: loaded)
            }
        }
    }
}

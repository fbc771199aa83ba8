import Foundation
import NowQuery
import NowSimTesting
import Testing

@testable import NowETL

/// The run journal and its spill parts: pages read back exactly, a resumed journal continues where the
/// last journaled page ended, and every way a crash can leave it (torn line, unjournaled tail, a spill
/// that no longer matches its digest, a split whose new part was never declared) ends in a correct
/// state — never in lost or doubled key ranges.
@Suite(.timeLimit(.minutes(2))) struct StateTableJournalTests {
    static let schema = RowSchema(columns: [
        ColumnSchema(name: "sys_id", type: .string), ColumnSchema(name: "n", type: .int),
        ColumnSchema(name: "when", type: .dateTime), ColumnSchema(name: "ok", type: .bool),
        ColumnSchema(name: "caller", type: .string, isReference: true),
    ])

    /// Opens the journal of plan `fingerprint` in `directory`, over `partitions` equal key ranges.
    static func open(
        _ directory: String, _ fingerprint: String = "plan-a", partitions: Int, restart: Bool = false
    ) throws -> (TableJournal, ResumeState) {
        try TableJournal.open(
            directory: directory, fingerprint: fingerprint, partitions: SysIDRange.partitions(partitions),
            restart: restart)
    }

    /// Journals one page of the rows `ids` to `part`: one request, no rejects, the last id the cursor.
    @discardableResult
    static func append(
        _ ids: [String], to part: Int, of journal: TableJournal, spill: SpillWriter, expectedUpper: SysID?
    ) throws -> Bool {
        try journal.appendPage(
            part, frame: SpillFrame.encode(batch(ids), rejections: []), to: spill, expectedUpper: expectedUpper,
            cursor: ids.last, rows: ids.count, rejects: 0, requests: 1)
    }

    static func batch(_ ids: [String]) -> RowBatch {
        var batch = RowBatch(schema: schema)
        for (index, id) in ids.enumerated() {
            batch.append(
                Row(
                    values: [
                        .string(id), .int(index - 2), .dateTime(secondsSinceEpoch: 1_700_000_000 + index),
                        index % 2 == 0 ? .bool(true) : nil, .string("u\(index)"),
                    ],
                    displayValues: [nil, nil, nil, nil, index % 3 == 0 ? nil : "Ünïcode \(index)"],
                    recordTable: index == 1 ? "incident" : nil))
        }
        return batch
    }

    static func rejection(_ id: String) -> Rejection {
        Rejection(sysID: id, column: "n", type: .int, value: "x\"y", record: Data("{\"sys_id\":\"\(id)\"}".utf8))
    }

    static func rows(_ journal: TableJournal) async throws -> [[ColumnValue?]] {
        var rows: [[ColumnValue?]] = []
        for part in journal.allParts {
            try await SpillReader(path: journal.spillPath(part.id)).forEachPage(length: part.length, schema: schema) {
                page in
                for row in 0..<page.batch.count { rows.append(page.batch.values(row: row)) }
            }
        }
        return rows
    }

    @Test func pagesComeBackExactlyWithDisplayValuesClassesAndRejections() async throws {
        try await withScratchDirectory { (directory: String) in
            let (journal, opening) = try Self.open(directory, partitions: 1)
            #expect(opening == .fresh)
            let spill = try journal.spillWriter(for: 0)
            let batch = Self.batch(["a1", "a2", "a3"])
            #expect(
                try journal.appendPage(
                    0, frame: SpillFrame.encode(batch, rejections: [Self.rejection("a0")]), to: spill,
                    expectedUpper: nil,
                    cursor: "a3", rows: 3, rejects: 1, requests: 2))
            var pages: [SpillFrame.Page] = []
            try await SpillReader(path: journal.spillPath(0)).forEachPage(
                length: try #require(journal.part(0)).length, schema: Self.schema
            ) { pages.append($0) }
            #expect(pages.count == 1)
            let page = try #require(pages.first)
            for row in 0..<3 {
                #expect(page.batch.values(row: row) == batch.values(row: row))
                #expect(page.batch.displayValue(row: row, column: 4) == batch.displayValue(row: row, column: 4))
                #expect(page.batch.recordTable(row: row) == batch.recordTable(row: row))
            }
            #expect(page.rejections == [Self.rejection("a0")])
            let part = try #require(journal.part(0))
            #expect(part.cursor == "a3" && part.pages == 1 && part.rows == 3 && part.rejects == 1 && part.requests == 2)
        }
    }

    @Test func aResumedJournalContinuesAfterItsLastPageAndCutsAnUnjournaledTail() async throws {
        try await withScratchDirectory { (directory: String) in
            do {
                let (journal, _) = try Self.open(directory, partitions: 2)
                let spill = try journal.spillWriter(for: 0)
                try Self.append(["01", "02"], to: 0, of: journal, spill: spill, expectedUpper: "8000")
                // A page written to the spill but never journaled: a crash between the two writes.
                try spill.append(SpillFrame.encode(Self.batch(["03"]), rejections: []))
                try journal.recordDone(1, requests: 1)
                journal.close()
            }
            let (journal, opening) = try Self.open(directory, partitions: 8)
            #expect(opening == .resumed(pages: 1, rows: 2, partsRestarted: 0))
            #expect(journal.allParts.count == 2, "the journal's parts, not the new partitioning")
            #expect(journal.part(1)?.done == true)
            #expect(try await Self.rows(journal).map { $0[0] } == [.string("01"), .string("02")])
            // Appending continues after the journaled bytes; the unjournaled page is gone.
            let spill = try journal.spillWriter(for: 0)
            try Self.append(["03", "04"], to: 0, of: journal, spill: spill, expectedUpper: "8000")
            #expect(try await Self.rows(journal).map { $0[0] } == ["01", "02", "03", "04"].map { .string($0) })
            #expect(journal.part(0)?.cursor == "04")
        }
    }

    /// A part's hidden-record figure is journaled with its done line and survives a resume (also when
    /// the journal is compacted again); a done line for an upper bound a split has moved is refused.
    @Test func theHiddenRecordsOfADoneRangeSurviveAResume() throws {
        try withScratchDirectory { (directory: String) in
            do {
                let (journal, _) = try Self.open(directory, partitions: 2)
                let spill = try journal.spillWriter(for: 0)
                try Self.append(["01", "02"], to: 0, of: journal, spill: spill, expectedUpper: "8000")
                #expect(try journal.split(0, at: "4000") != nil)
                #expect(try !journal.recordDone(0, hidden: 7, expectedUpper: .some("8000")), "the split moved it")
                #expect(journal.part(0)?.done == false)
                #expect(try journal.recordDone(0, hidden: 5, expectedUpper: .some("4000")))
                try journal.recordDone(1, requests: 1, hidden: 11)
                spill.close()
                journal.close()
            }
            for _ in 0..<2 {
                let (journal, _) = try Self.open(directory, partitions: 2)
                defer { journal.close() }
                #expect(journal.part(0)?.hidden == 5)
                #expect(journal.part(1)?.hidden == 11)
                #expect(journal.allParts.reduce(0) { $0 + $1.hidden } == 16, "the new part hid nothing yet")
            }
        }
    }

    @Test func aSpillThatNoLongerMatchesItsDigestIsFetchedAgain() throws {
        try withScratchDirectory { (directory: String) in
            do {
                let (journal, _) = try Self.open(directory, partitions: 1)
                let spill = try journal.spillWriter(for: 0)
                try Self.append(["01"], to: 0, of: journal, spill: spill, expectedUpper: nil)
                journal.close()
            }
            let path = directory + "/part-0.spill"
            var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            bytes[bytes.count - 3] ^= 0xFF
            try bytes.write(to: URL(fileURLWithPath: path))
            let (journal, opening) = try Self.open(directory, partitions: 1)
            #expect(opening == .resumed(pages: 0, rows: 0, partsRestarted: 1))
            let part = try #require(journal.part(0))
            #expect(part.cursor == nil && part.length == 0 && !part.done)
        }
    }

    @Test func anotherPlanATornHeaderOrRestartStartOver() throws {
        try withScratchDirectory { (directory: String) in
            _ = try Self.open(directory, partitions: 2)
            let (_, changed) = try Self.open(directory, "plan-b", partitions: 3)
            guard case .discarded(let reason) = changed else {
                Issue.record("expected the journal of another plan to be discarded, got \(changed)")
                return
            }
            #expect(reason.contains("changed"))
            let (journal, restarted) = try Self.open(directory, "plan-b", partitions: 4, restart: true)
            #expect(restarted == .fresh)
            #expect(journal.allParts.count == 4)
            journal.close()
            try
                "{\"kind\":\"table\",\"plan\":\"plan-b\"}\n{\"kind\":\"state\",\"part\":0,\"upper\":\"4000\"}\n{\"kind\":\"pa"
                .write(toFile: directory + "/journal.jsonl", atomically: true, encoding: .utf8)
            let (torn, opening) = try Self.open(directory, "plan-b", partitions: 1)
            #expect(opening == .resumed(pages: 0, rows: 0, partsRestarted: 0), "a torn last line is a crash mid-write")
            #expect(
                torn.allParts.map(\.range) == [
                    SysIDRange(lowerBound: nil, upperBound: "4000"), SysIDRange(lowerBound: "4000", upperBound: nil),
                ])
            torn.close()
            try "{\"kind\":\"table\",\"plan\":\"plan-b\"}\nnot json\n{\"kind\":\"done\",\"part\":0}\n"
                .write(toFile: directory + "/journal.jsonl", atomically: true, encoding: .utf8)
            let (_, damaged) = try Self.open(directory, "plan-b", partitions: 1)
            #expect(damaged == .discarded(reason: "line 2 of the journal is unreadable"))
        }
    }

    @Test func aSplitWhoseNewPartWasNeverDeclaredLeavesAGapThatIsFilled() throws {
        try withScratchDirectory { (directory: String) in
            do {
                let (journal, _) = try Self.open(directory, partitions: 2)
                let spill = try journal.spillWriter(for: 0)
                try Self.append(["0001"], to: 0, of: journal, spill: spill, expectedUpper: "8000")
                let new = try #require(try journal.split(0, at: "4000"))
                #expect(new.range == SysIDRange(lowerBound: "4000", upperBound: "8000"))
                #expect(journal.part(0)?.range.upperBound == "4000")
                // A page cut against the old bound is refused, so it can be cut again.
                #expect(
                    try !journal.appendPage(
                        0, frame: [], to: spill, expectedUpper: "8000", cursor: "5000", rows: 0, rejects: 0, requests: 1
                    ))
                #expect(try journal.split(0, at: "0000") == nil, "never below the cursor")
                journal.close()
            }
            // Drop the new part's declaration, as if the crash came between the two lines.
            let path = directory + "/journal.jsonl"
            let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            try (lines.dropLast().joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            let (journal, _) = try Self.open(directory, partitions: 2)
            #expect(
                journal.allParts.map(\.range) == [
                    SysIDRange(lowerBound: nil, upperBound: "4000"), SysIDRange(lowerBound: "4000", upperBound: "8000"),
                    SysIDRange(lowerBound: "8000", upperBound: nil),
                ])
        }
    }

    @Test func journalsOfTablesThePipelineNoLongerHasAreRemoved() throws {
        try withScratchDirectory { (output: String) in
            for table in ["incident", "u_old_table"] {
                let (journal, _) = try TableJournal.open(
                    directory: TableJournal.directory(outputDirectory: output, table: table), fingerprint: "p",
                    partitions: SysIDRange.partitions(1), restart: false)
                journal.close()
            }
            let removed = TableJournal.removeJournals(outputDirectory: output, except: ["incident", "problem"])
            #expect(removed == [TableJournal.directory(outputDirectory: output, table: "u_old_table")])
            #expect(
                FileManager.default.fileExists(
                    atPath: TableJournal.directory(outputDirectory: output, table: "incident")))
            #expect(TableJournal.removeJournals(outputDirectory: output + "/missing", except: []).isEmpty)
        }
    }

    @Test func keySpacePositionsFollowTheInstancesTextOrder() throws {
        #expect(KeySpace.position("4000") == UInt128(0x4000) << 112)
        #expect(KeySpace.position("0000000000000000000000000000000f") == 15)
        #expect(KeySpace.position("ABCD") == nil)
        #expect(KeySpace.position(String(repeating: "f", count: 33)) == nil)
        let cursor = "10000000000000000000000000000000"
        let point = try #require(KeySpace.splitPoint(after: cursor, upper: "2000", pageWidth: 1 << 100, keepPages: 2))
        #expect(point == "10000020000000000000000000000000")
        #expect(point > cursor && point < "2000")
        let half = try #require(KeySpace.splitPoint(after: cursor, upper: "2000", pageWidth: 0, keepPages: 2))
        #expect(half == "18000000000000000000000000000000")
        #expect(
            KeySpace.splitPoint(after: "ffffffffffffffffffffffffffffffff", upper: nil, pageWidth: 1, keepPages: 1)
                == nil)
    }
}

import Foundation
import NowQuery
import NowSQLite

/// Inserts rows into one physical table, building each row's values in a reused byte arena.
///
/// The bulk paths (seeding, schema rows) insert millions of rows; a row is ~50 text fields, so
/// per-field `String`s would dominate. Values are appended as UTF-8 into one arena, bound with
/// SQLITE_STATIC pointers into it and stepped; the arena is then cleared with its capacity kept.
/// Columns not set in a row are inserted as NULL (the storage contract's "empty").
struct RowWriter {
    /// The physical table.
    let table: String
    /// The columns of the INSERT; slot `i` is parameter `i + 1`.
    let columns: [String]
    private let statement: SQLiteStatement
    private let slotsByName: [String: Int]
    private var arena: [UInt8] = []
    private var starts: [Int]
    private var lengths: [Int]
    private var touched: [Int] = []
    private var open: Int = -1

    /// Prepares `INSERT INTO "table" ("c1", …) VALUES (?, …)` on `connection`.
    init(connection: SQLiteConnection, table: String, columns: [String]) throws {
        self.table = table
        self.columns = columns
        let names = columns.map(SQLIdentifier.quote).joined(separator: ", ")
        let parameters = Array(repeating: "?", count: columns.count).joined(separator: ", ")
        statement = try connection.prepareWriter(
            "INSERT INTO \(SQLIdentifier.quote(table)) (\(names)) VALUES (\(parameters))")
        var slots: [String: Int] = [:]
        for (offset, column) in columns.enumerated() { slots[column] = offset }
        slotsByName = slots
        starts = Array(repeating: 0, count: columns.count)
        lengths = Array(repeating: -1, count: columns.count)
        arena.reserveCapacity(64 * 1024)
        touched.reserveCapacity(columns.count)
    }

    /// The slot of `column`, or `nil` when the table has no such column.
    func slot(_ column: String) -> Int? { slotsByName[column] }

    /// The slot of `column`; a missing column is a programming error in nowsim's own schema.
    func requiredSlot(_ column: String) -> Int {
        guard let slot = slotsByName[column] else { preconditionFailure("\(table) has no column \(column)") }
        return slot
    }

    /// Sets a text value; `nil` and `""` leave the column NULL.
    mutating func set(_ slot: Int, _ value: String?) {
        guard let value, !value.isEmpty else { return }
        begin(slot)
        arena.append(contentsOf: value.utf8)
        end()
    }

    /// Sets a column by name (for the cold paths); unknown columns are ignored.
    mutating func set(column: String, _ value: String?) {
        if let slot = slotsByName[column] { set(slot, value) }
    }

    /// Sets an integer as decimal text.
    mutating func set(_ slot: Int, integer value: Int) {
        begin(slot)
        DecimalText.appendInteger(value, to: &arena)
        end()
    }

    /// Sets `true` / `false`.
    mutating func set(_ slot: Int, boolean value: Bool) {
        begin(slot)
        if value {
            arena.append(contentsOf: [0x74, 0x72, 0x75, 0x65])
        } else {
            arena.append(contentsOf: [0x66, 0x61, 0x6C, 0x73, 0x65])
        }
        end()
    }

    /// Sets a date-time (`yyyy-MM-dd HH:mm:ss` UTC) from seconds since the epoch.
    mutating func set(_ slot: Int, dateTime seconds: Int) {
        begin(slot)
        TableAPIDateFormat.append(dateTime: seconds, to: &arena)
        end()
    }

    /// Sets a date (`yyyy-MM-dd`) from seconds since the epoch.
    mutating func set(_ slot: Int, date seconds: Int) {
        begin(slot)
        TableAPIDateFormat.append(date: seconds, to: &arena)
        end()
    }

    /// Sets a duration (`1970-01-01 HH:mm:ss`, days added to the date) from a length in seconds.
    mutating func set(_ slot: Int, duration seconds: Int) {
        set(slot, dateTime: seconds)
    }

    /// Sets a prefix followed by a zero-padded number (`INC0010001`).
    mutating func set(_ slot: Int, prefix: String, number: Int, width: Int) {
        begin(slot)
        arena.append(contentsOf: prefix.utf8)
        DecimalText.appendPadded(number, width: width, to: &arena)
        end()
    }

    /// Sets a sys_id: the 32 lowercase hex digits of `high` and `low`.
    mutating func set(_ slot: Int, sysID: SysIDBits) {
        begin(slot)
        sysID.append(to: &arena)
        end()
    }

    /// Starts a value built piecewise with `append`; finish it with `end()`.
    mutating func begin(_ slot: Int) {
        open = slot
        starts[slot] = arena.count
    }

    /// Appends UTF-8 text to the value started with `begin(_:)`.
    mutating func append(_ text: String) {
        arena.append(contentsOf: text.utf8)
    }

    /// Appends raw UTF-8 bytes to the value started with `begin(_:)`.
    mutating func append(bytes: [UInt8]) {
        arena.append(contentsOf: bytes)
    }

    /// Finishes the value started with `begin(_:)`; an empty value stays NULL.
    mutating func end() {
        let slot = open
        let length = arena.count - starts[slot]
        if length > 0 {
            if lengths[slot] < 0 { touched.append(slot) }
            lengths[slot] = length
        }
        open = -1
    }

    /// Inserts the row built so far and clears the writer for the next one.
    mutating func insert() throws {
        defer { clear() }
        try bindAndStep()
    }

    private func bindAndStep() throws {
        // `run` resets the statement (dropping the bindings into the arena) however the step ends.
        try statement.run { statement in
            try arena.withUnsafeBufferPointer { buffer in
                for slot in touched {
                    let start = starts[slot]
                    let value = UnsafeBufferPointer(rebasing: buffer[start..<(start + lengths[slot])])
                    try statement.bindText(value, at: Int32(slot + 1), copy: false)
                }
                try statement.step()
            }
        }
    }

    private mutating func clear() {
        for slot in touched { lengths[slot] = -1 }
        touched.removeAll(keepingCapacity: true)
        if arena.capacity > 4 * 1024 * 1024 {
            arena = []
            arena.reserveCapacity(64 * 1024)
        } else {
            arena.removeAll(keepingCapacity: true)
        }
    }
}

/// Quoting of SQLite identifiers (table and column names such as `group` or `user` are keywords).
enum SQLIdentifier {
    /// `name` in double quotes, inner quotes doubled.
    static func quote(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

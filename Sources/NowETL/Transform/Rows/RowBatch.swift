/// A batch of rows of one schema: what sinks receive in ``RecordSink/write(_:)``.
///
/// Storage is flat and row-major (one array of cells for the whole batch, not one per row), so filling a
/// batch of a page's records costs a few allocations however many rows and columns it has. Reuse a batch
/// with ``removeAll(keepingCapacity:)`` to keep even those.
///
/// Text cells may be held as bytes in one buffer of the batch rather than as a `String` each
/// (``setText(_:row:column:)``: a page's text copied from its body, or a spill page's from its
/// frame); the subscript makes the `String` when a cell is read, and sinks that copy bytes read them
/// in place with ``withStringBytes(row:column:_:)``.
///
/// Two ways to fill it:
/// ```swift
/// var batch = RowBatch(schema: schema, capacity: 1000)
/// batch.append(Row(values: [.string("INC0010001"), .int(3)]))      // a whole row
///
/// let row = batch.appendRow(recordTable: "incident")               // or cell by cell, no Row value
/// batch[row, 0] = .string("INC0010002")
/// batch.setDisplayValue("Fred Luddy", row: row, column: 2)
/// ```
public struct RowBatch: Sendable {
    /// The number of columns of every row.
    public let columnCount: Int
    /// Whether the batch stores display values (the schema has a reference column).
    public let carriesDisplayValues: Bool
    /// The number of rows.
    public private(set) var count: Int = 0
    /// Per cell its value, or where its text is in ``texts`` when it is held as bytes: one array of the
    /// size `[ColumnValue?]` would have (`Cell`), not a second one of spans beside it.
    private var cells: [Cell] = []
    /// The bytes of the text cells held as bytes.
    private var texts: [UInt8] = []
    private var displays: [String?] = []
    private var tables: [String?] = []

    /// Creates an empty batch for rows of `schema`, with room for `capacity` rows.
    public init(schema: RowSchema, capacity: Int = 0) {
        self.init(columnCount: schema.count, carriesDisplayValues: schema.hasReferences, capacity: capacity)
    }

    /// Creates an empty batch of rows with `columnCount` columns, with room for `capacity` rows.
    public init(columnCount: Int, carriesDisplayValues: Bool = false, capacity: Int = 0) {
        precondition(columnCount >= 0, "a row batch needs a column count of zero or more")
        self.columnCount = columnCount
        self.carriesDisplayValues = carriesDisplayValues
        cells.reserveCapacity(columnCount * capacity)
        if carriesDisplayValues { displays.reserveCapacity(columnCount * capacity) }
        tables.reserveCapacity(capacity)
    }

    /// Whether the batch has no rows.
    public var isEmpty: Bool { count == 0 }

    /// The bytes of the text cells held as bytes (``setText(_:row:column:)``).
    var textByteCount: Int { texts.count }

    /// Makes room for `bytes` bytes of text cells held as bytes, so that filling the batch from a page
    /// (whose text is at most its body) does not copy them again and again as they grow; pages not
    /// written are never touched, so an estimate above the need costs address space, not memory.
    mutating func reserveTextCapacity(_ bytes: Int) {
        texts.reserveCapacity(bytes)
    }

    /// The rows for which `isIncluded` (given the row index) is true, in order, with their display
    /// values and record tables.
    public func filter(_ isIncluded: (Int) -> Bool) -> RowBatch {
        var kept = RowBatch(columnCount: columnCount, carriesDisplayValues: carriesDisplayValues, capacity: count)
        kept.texts = texts
        for row in 0..<count where isIncluded(row) {
            let new = kept.appendRow(recordTable: tables[row])
            for column in 0..<columnCount {
                // A kept text cell points into the same bytes, shared with this batch.
                kept.cells[new * columnCount + column] = cells[row * columnCount + column]
                if carriesDisplayValues {
                    kept.displays[new * columnCount + column] = displays[row * columnCount + column]
                }
            }
        }
        return kept
    }

    /// Appends a row of nulls (no display values) and returns its index, to fill with the subscript.
    @discardableResult
    public mutating func appendRow(recordTable: String? = nil) -> Int {
        cells.append(contentsOf: repeatElement(.null, count: columnCount))
        if carriesDisplayValues { displays.append(contentsOf: repeatElement(nil, count: columnCount)) }
        tables.append(recordTable)
        count += 1
        return count - 1
    }

    /// Removes the last row (a row filled cell by cell and then given up).
    ///
    /// - Precondition: the batch has a row.
    public mutating func removeLastRow() {
        precondition(count > 0, "no row to remove")
        cells.removeLast(columnCount)
        if carriesDisplayValues { displays.removeLast(columnCount) }
        tables.removeLast()
        count -= 1
    }

    /// Appends a copy of `row`.
    ///
    /// - Precondition: `row.values.count == columnCount`, and `row.displayValues` is empty or has
    ///   `columnCount` entries.
    public mutating func append(_ row: Row) {
        precondition(row.values.count == columnCount, "row has \(row.values.count) values, batch \(columnCount)")
        precondition(
            row.displayValues.isEmpty || row.displayValues.count == columnCount,
            "row has \(row.displayValues.count) display values, batch \(columnCount) columns")
        cells.append(contentsOf: row.values.lazy.map(Cell.init))
        if carriesDisplayValues {
            if row.displayValues.isEmpty {
                displays.append(contentsOf: repeatElement(nil, count: columnCount))
            } else {
                displays.append(contentsOf: row.displayValues)
            }
        }
        tables.append(row.recordTable)
        count += 1
    }

    /// The value at `row`, `column` (`nil` is null).
    public subscript(row: Int, column: Int) -> ColumnValue? {
        get {
            switch cells[index(row, column)] {
            case .null: return nil
            case .value(let value): return value
            case .text(let start, let count):
                return .string(
                    texts.withUnsafeBufferPointer {
                        String(decoding: Cell.bytes(start: start, count: count, of: $0), as: UTF8.self)
                    })
            }
        }
        set {
            cells[index(row, column)] = Cell(newValue)
        }
    }

    /// Sets the cell at `row`, `column` to the text of `bytes` (valid UTF-8), held as bytes: read back
    /// as ``ColumnValue/string(_:)``.
    mutating func setText(_ bytes: UnsafeBufferPointer<UInt8>, row: Int, column: Int) {
        let index = index(row, column)
        // A span is 32-bit: a batch's bytes beyond 4 GiB (never one page's) are held as a String.
        guard let start = UInt32(exactly: texts.count), let count = UInt32(exactly: bytes.count),
            UInt32.max - start >= count
        else {
            cells[index] = .value(.string(String(decoding: bytes, as: UTF8.self)))
            return
        }
        cells[index] = .text(start: start, count: count)
        texts.append(contentsOf: bytes)
    }

    /// Calls `body` with the UTF-8 bytes of the cell at `row`, `column` when it is text
    /// (``ColumnValue/string(_:)``), in place; `nil` for any other cell, null included.
    func withStringBytes<Result>(row: Int, column: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows
        -> Result?
    {
        switch cells[index(row, column)] {
        case .null: return nil
        case .value(let value):
            guard case .string(var text) = value else { return nil }
            return try text.withUTF8(body)
        case .text(let start, let count):
            return try texts.withUnsafeBufferPointer { try body(Cell.bytes(start: start, count: count, of: $0)) }
        }
    }

    /// The display value at `row`, `column`; `nil` when none was set or the batch carries none.
    public func displayValue(row: Int, column: Int) -> String? {
        carriesDisplayValues ? displays[index(row, column)] : nil
    }

    /// Sets the display value at `row`, `column`.
    ///
    /// - Precondition: the batch carries display values (its schema has a reference column).
    public mutating func setDisplayValue(_ text: String?, row: Int, column: Int) {
        precondition(carriesDisplayValues, "this batch's schema has no reference column")
        displays[index(row, column)] = text
    }

    /// The table of the record in `row` (`sys_class_name`) when it was given.
    public func recordTable(row: Int) -> String? {
        tables[row]
    }

    /// Sets the table of the record in `row`.
    public mutating func setRecordTable(_ table: String?, row: Int) {
        tables[row] = table
    }

    /// The values of one row, as a new array (for tests and diagnostics; sinks read cells in place).
    public func values(row: Int) -> [ColumnValue?] {
        precondition(row >= 0 && row < count, "row out of range")
        return (0..<columnCount).map { self[row, $0] }
    }

    /// Removes all rows, keeping the storage for reuse unless told otherwise.
    public mutating func removeAll(keepingCapacity: Bool = true) {
        cells.removeAll(keepingCapacity: keepingCapacity)
        texts.removeAll(keepingCapacity: keepingCapacity)
        displays.removeAll(keepingCapacity: keepingCapacity)
        tables.removeAll(keepingCapacity: keepingCapacity)
        count = 0
    }

    @inline(__always) private func index(_ row: Int, _ column: Int) -> Int {
        precondition(row >= 0 && row < count && column >= 0 && column < columnCount, "cell out of range")
        return row &* columnCount &+ column
    }
}

/// One cell of a ``RowBatch``: null, a value, or text held as bytes of the batch's buffer. The same
/// size as `ColumnValue?` (the span's two 32-bit numbers fit in the string's room), so holding text as
/// bytes costs no second per-cell array.
private enum Cell {
    case null
    case value(ColumnValue)
    /// Text: `count` bytes of the batch's buffer from `start`.
    case text(start: UInt32, count: UInt32)

    init(_ value: ColumnValue?) {
        self = value.map { .value($0) } ?? .null
    }

    static func bytes(start: UInt32, count: UInt32, of buffer: UnsafeBufferPointer<UInt8>)
        -> UnsafeBufferPointer<UInt8>
    {
        UnsafeBufferPointer(rebasing: buffer[Int(start)..<(Int(start) + Int(count))])
    }
}

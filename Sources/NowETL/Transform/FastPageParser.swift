import Foundation

/// The byte scanner behind ``FastPageDecoder``: one pass over a UTF-8 page body that validates it as
/// Foundation's `JSONSerialization` does and builds the records of the array at the decoder's path.
///
/// What it accepts is what `JSONSerialization` (swift-corelibs-foundation) accepts, measured: RFC 8259
/// JSON with a top-level object or array, an optional UTF-8 byte order mark, at most 512 nested
/// containers, one trailing comma before `]` or `}` after at least one element, no lone surrogate
/// escape, no invalid UTF-8 (overlong forms and encoded surrogates included), no raw control byte
/// below U+0020 in a string, no number beyond `Double`'s range. A value is kept as byte ranges of the
/// body (``RawValue``), flagged where escapes are to be undone, and becomes a `String` only when read
/// (``PageText``); a field outside the projection is validated and skipped without allocating.
struct FastPageParser {
    /// Why the body is not JSON, and where.
    struct Failure: Error {
        var reason: String
        var offset: Int
    }

    /// What the value at the decoder's path turned out to be (the last occurrence wins, as in a
    /// Foundation dictionary).
    enum Target {
        case missing
        case notArray
        case notRecord
        case records
    }

    /// A field name seen at a position of the previous record: records of a page repeat their keys in
    /// the same order, so a key is compared, not allocated, hashed and looked up again.
    private struct Key {
        var bytes: [UInt8]
        /// The field's slot in the page's ``RecordLayout``; `-1` outside the projection.
        var slot: Int
        var isSysID: Bool
    }

    static let maximumDepth = 512

    private let base: UnsafePointer<UInt8>
    private let end: Int
    private var index = 0
    private let path: [[UInt8]]
    private let projection: Set<String>?
    private var keys: [Key] = []
    /// The kept field names of the page so far, by slot, and their slots.
    private var names: [String] = []
    private var slots: [String: Int] = [:]
    /// The layout of ``names``, once made; `nil` when a name came after it was.
    private var layout: RecordLayout?

    /// The target's kind after ``parse()``.
    private(set) var target = Target.missing
    /// The records of the target array: their layout and values by slot (ranges of the body).
    private(set) var records: [(layout: RecordLayout, values: [RawValue])] = []
    /// Texts the body does not hold as written (``PageText/extras``).
    private(set) var extras: [String] = []
    /// Elements of the target array (records or not).
    private(set) var elementCount = 0
    /// The greatest sys_id (by UTF-8 bytes) among the target's records.
    private(set) var greatestSysID: TextRange?
    /// Whether the top-level object has an `error` member.
    private(set) var hasErrorMember = false

    init(base: UnsafePointer<UInt8>, count: Int, path: [String], projection: Set<String>?) {
        self.base = base
        end = count
        self.path = path.map { Array($0.utf8) }
        self.projection = projection
    }

    // MARK: - Document

    /// Parses the whole body.
    /// - Throws: ``Failure`` where the body stops being JSON.
    mutating func parse() throws(Failure) {
        if end >= 3, base[0] == 0xEF, base[1] == 0xBB, base[2] == 0xBF { index = 3 }
        skipBlanks()
        guard index < end, base[index] == .openBrace || base[index] == .openBracket else {
            throw fail(index < end ? "the body is not a JSON object or array" : "the body is empty")
        }
        try node(depth: 0, level: 0)
        skipBlanks()
        guard index == end else { throw fail("bytes after the JSON value") }
    }

    /// A value on the way to the target: an object is searched for the path's next key.
    private mutating func node(depth: Int, level: Int) throws(Failure) {
        guard level < path.count else {
            try targetValue(depth: depth)
            return
        }
        guard try current() == .openBrace else {
            try skipValue(depth: depth)
            return
        }
        try enter(depth)
        index += 1
        skipBlanks()
        if try close(.closeBrace) { return }
        while true {
            let key = try stringToken()
            skipBlanks()
            try expect(.colon)
            skipBlanks()
            if level == 0, equals(key, Self.errorKey) { hasErrorMember = true }
            if matches(key, path[level]) {
                target = .missing
                records = []
                elementCount = 0
                greatestSysID = nil
                try node(depth: depth + 1, level: level + 1)
            } else {
                try skipValue(depth: depth + 1)
            }
            if try next(closing: .closeBrace) { return }
        }
    }

    /// The value at the path: the record array.
    private mutating func targetValue(depth: Int) throws(Failure) {
        guard try current() == .openBracket else {
            target = .notArray
            try skipValue(depth: depth)
            return
        }
        try enter(depth)
        index += 1
        target = .records
        skipBlanks()
        if try close(.closeBracket) { return }
        while true {
            elementCount += 1
            if target == .records, base[index] == .openBrace {
                records.append(try record(depth: depth + 1))
            } else {
                target = .notRecord
                records = []
                try skipValue(depth: depth + 1)
            }
            if try next(closing: .closeBracket) { return }
        }
    }

    /// One record object.
    private mutating func record(depth: Int) throws(Failure) -> (layout: RecordLayout, values: [RawValue]) {
        try enter(depth)
        index += 1
        var values = [RawValue](repeating: .absent, count: names.count)
        var sysID: TextRange?
        skipBlanks()
        if try !close(.closeBrace) {
            var position = 0
            while true {
                let key = try recordKey(at: position)
                skipBlanks()
                try expect(.colon)
                skipBlanks()
                if key.slot >= 0 || key.isSysID {
                    let value = try fieldValue(depth: depth + 1)
                    if key.isSysID { sysID = Self.sysIDText(value) }
                    if key.slot >= 0 {
                        while values.count <= key.slot { values.append(.absent) }
                        values[key.slot] = value
                    }
                } else {
                    try skipValue(depth: depth + 1)
                }
                position += 1
                if try next(closing: .closeBrace) { break }
            }
        }
        while values.count < names.count { values.append(.absent) }
        if let sysID, sysID.kind != .absent, greatestSysID.map({ utf8Precedes($0, sysID) }) ?? true {
            greatestSysID = sysID
        }
        let recordLayout: RecordLayout
        if let layout {
            recordLayout = layout
        } else {
            recordLayout = RecordLayout(names: names, slots: slots)
            layout = recordLayout
        }
        return (recordLayout, values)
    }

    /// The sys_id as NowData's scanner reads it: the plain string, or the stored (else display) form.
    private static func sysIDText(_ value: RawValue) -> TextRange {
        RawValue.range(whole: value, part: .absent, form: nil, plainForm: .value)
    }

    /// Whether the UTF-8 bytes of `left` precede those of `right`.
    private func utf8Precedes(_ left: TextRange, _ right: TextRange) -> Bool {
        if left.kind == .plain, right.kind == .plain {
            let leftBytes = UnsafeBufferPointer(start: base + Int(left.start), count: Int(left.count))
            let rightBytes = UnsafeBufferPointer(start: base + Int(right.start), count: Int(right.count))
            return leftBytes.lexicographicallyPrecedes(rightBytes)
        }
        return text(of: left).utf8.lexicographicallyPrecedes(text(of: right).utf8)
    }

    /// The text of a range of this body (empty when absent).
    func text(of range: TextRange) -> String {
        switch range.kind {
        case .absent: return ""
        case .extra: return extras[Int(range.start)]
        case .plain, .escaped:
            return Self.text(
                base: base, start: Int(range.start), count: Int(range.count), escaped: range.kind == .escaped)
        }
    }

    /// The key at `position` of a record, through the key cache: its slot (`-1` outside the projection)
    /// and whether it is `sys_id`.
    private mutating func recordKey(at position: Int) throws(Failure) -> (slot: Int, isSysID: Bool) {
        let token = try stringToken()
        if !token.escaped, position < keys.count, sameBytes(token, keys[position].bytes) {
            // Read in place: copying the cached key would retain and release its bytes for every field.
            return (keys[position].slot, keys[position].isSysID)
        }
        let name = string(token)
        let isSysID = name == "sys_id"
        let slot: Int
        if let known = slots[name] {
            slot = known
        } else if projection?.contains(name) ?? true {
            slot = names.count
            names.append(name)
            slots[name] = slot
            layout = nil
        } else {
            slot = -1
        }
        if !token.escaped {
            let key = Key(
                bytes: Array(UnsafeBufferPointer(start: base + token.start, count: token.count)), slot: slot,
                isSysID: isSysID)
            if position < keys.count {
                keys[position] = key
            } else if position == keys.count {
                keys.append(key)
            }
        }
        return (slot, isSysID)
    }

    // MARK: - Values

    /// A field's value, as ``FoundationPageDecoder`` maps `JSONSerialization`'s objects.
    private mutating func fieldValue(depth: Int) throws(Failure) -> RawValue {
        switch try current() {
        case .quote:
            return .text(range(try stringToken()))
        case .openBrace:
            return try forms(depth: depth)
        case .openBracket:
            try skipValue(depth: depth)
            return .null
        default:
            let text = try scalarText(depth: depth)
            return text.kind == .absent ? .null : .text(text)
        }
    }

    /// An object of value forms; members other than `value`, `display_value` and `link` are skipped.
    private mutating func forms(depth: Int) throws(Failure) -> RawValue {
        try enter(depth)
        index += 1
        var value = TextRange.absent
        var displayValue = TextRange.absent
        var link = TextRange.absent
        skipBlanks()
        if try !close(.closeBrace) {
            while true {
                let key = try stringToken()
                skipBlanks()
                try expect(.colon)
                skipBlanks()
                if matches(key, Self.valueKey) {
                    value = try scalarText(depth: depth + 1)
                } else if matches(key, Self.displayValueKey) {
                    displayValue = try scalarText(depth: depth + 1)
                } else if matches(key, Self.linkKey) {
                    link = try scalarText(depth: depth + 1)
                } else {
                    try skipValue(depth: depth + 1)
                }
                if try next(closing: .closeBrace) { break }
            }
        }
        return RawValue(shape: .forms, value: value, displayValue: displayValue, link: link)
    }

    /// A string, number or boolean as text (`NSNumber.stringValue`: `true` is `1`); absent for `null`,
    /// an object or an array.
    private mutating func scalarText(depth: Int) throws(Failure) -> TextRange {
        switch try current() {
        case .quote:
            return range(try stringToken())
        case .openBrace, .openBracket:
            try skipValue(depth: depth)
            return .absent
        case .letterT:
            try literal(Self.trueWord)
            return extra("1")
        case .letterF:
            try literal(Self.falseWord)
            return extra("0")
        case .letterN:
            try literal(Self.nullWord)
            return .absent
        default:
            return try numberText()
        }
    }

    /// The range of a validated string token.
    private func range(_ token: Token) -> TextRange {
        TextRange(start: UInt32(token.start), count: UInt32(token.count), kind: token.escaped ? .escaped : .plain)
    }

    /// A text the body does not hold as written, kept in ``extras``.
    private mutating func extra(_ text: String) -> TextRange {
        extras.append(text)
        return TextRange(start: UInt32(extras.count - 1), count: UInt32(text.utf8.count), kind: .extra)
    }

    /// Validates one value without keeping anything.
    private mutating func skipValue(depth: Int) throws(Failure) {
        switch try current() {
        case .quote:
            _ = try stringToken()
        case .openBrace:
            try enter(depth)
            index += 1
            skipBlanks()
            if try close(.closeBrace) { return }
            while true {
                _ = try stringToken()
                skipBlanks()
                try expect(.colon)
                skipBlanks()
                try skipValue(depth: depth + 1)
                if try next(closing: .closeBrace) { return }
            }
        case .openBracket:
            try enter(depth)
            index += 1
            skipBlanks()
            if try close(.closeBracket) { return }
            while true {
                try skipValue(depth: depth + 1)
                if try next(closing: .closeBracket) { return }
            }
        case .letterT: try literal(Self.trueWord)
        case .letterF: try literal(Self.falseWord)
        case .letterN: try literal(Self.nullWord)
        default: _ = try numberText(keeping: false)
        }
    }

    // MARK: - Structure

    /// The byte at `index`, where a value must start.
    private func current() throws(Failure) -> UInt8 {
        guard index < end else { throw fail("the body ends where a value should start") }
        return base[index]
    }

    /// Checks the depth before opening a container at `depth` (0 for the top level).
    private func enter(_ depth: Int) throws(Failure) {
        guard depth < Self.maximumDepth else { throw fail("more than \(Self.maximumDepth) nested containers") }
    }

    /// After an opening bracket and blanks: consumes `byte` when the container is empty.
    private mutating func close(_ byte: UInt8) throws(Failure) -> Bool {
        guard index < end else { throw fail("the body ends inside a container") }
        guard base[index] == byte else { return false }
        index += 1
        return true
    }

    /// After a member or element: `true` at the container's end (a trailing comma is allowed, as
    /// `JSONSerialization` allows it), `false` after a comma with more to come.
    private mutating func next(closing: UInt8) throws(Failure) -> Bool {
        skipBlanks()
        guard index < end else { throw fail("the body ends inside a container") }
        if base[index] == closing {
            index += 1
            return true
        }
        guard base[index] == .comma else { throw fail("expected ',' or '\(Character(Unicode.Scalar(closing)))'") }
        index += 1
        skipBlanks()
        guard index < end else { throw fail("the body ends inside a container") }
        if base[index] == closing {
            index += 1
            return true
        }
        return false
    }

    private mutating func expect(_ byte: UInt8) throws(Failure) {
        guard index < end, base[index] == byte else { throw fail("expected '\(Character(Unicode.Scalar(byte)))'") }
        index += 1
    }

    private mutating func skipBlanks() {
        while index < end {
            switch base[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private mutating func literal(_ word: [UInt8]) throws(Failure) {
        guard index + word.count <= end else { throw fail("the body ends inside a literal") }
        for offset in 0..<word.count where base[index + offset] != word[offset] {
            throw fail("not a JSON literal")
        }
        index += word.count
    }

    private func fail(_ reason: String) -> Failure {
        Failure(reason: reason, offset: index)
    }

    // MARK: - Strings

    /// A validated string token: the bytes between its quotes.
    private struct Token {
        var start: Int
        var count: Int
        var escaped: Bool
    }

    /// Reads and validates a string (escapes, surrogate pairs, UTF-8) without allocating.
    private mutating func stringToken() throws(Failure) -> Token {
        guard index < end, base[index] == .quote else { throw fail("expected a string") }
        index += 1
        let start = index
        var escaped = false
        while true {
            // Eight bytes at a time while none is a quote, a backslash, a control byte or non-ASCII.
            while index + 8 <= end {
                let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                if Self.isPlain(word) { index += 8 } else { break }
            }
            guard index < end else { throw fail("the body ends inside a string") }
            let byte = base[index]
            if byte == .quote {
                let token = Token(start: start, count: index - start, escaped: escaped)
                index += 1
                return token
            }
            if byte == .backslash {
                escaped = true
                try escape()
            } else if byte < 0x20 {
                throw fail("a control character in a string")
            } else if byte < 0x80 {
                index += 1
            } else {
                try utf8Sequence()
            }
        }
    }

    /// Whether none of the 8 bytes is `"`, `\`, below 0x20 or above 0x7F.
    private static func isPlain(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let quotes = word ^ (ones &* 0x22)
        let backslashes = word ^ (ones &* 0x5C)
        let special =
            (quotes &- ones) & ~quotes | (backslashes &- ones) & ~backslashes | (word &- ones &* 0x20) | word
        return special & highs == 0
    }

    /// Validates the escape at `index` (a backslash).
    private mutating func escape() throws(Failure) {
        guard index + 1 < end else { throw fail("the body ends inside an escape") }
        switch base[index + 1] {
        case .quote, .backslash, .slash, .letterB, .letterF, .letterN, .letterR, .letterT:
            index += 2
        case .letterU:
            let unit = try hexUnit(at: index + 2)
            index += 6
            if (0xD800...0xDBFF).contains(unit) {
                guard index + 1 < end, base[index] == .backslash, base[index + 1] == .letterU,
                    (0xDC00...0xDFFF).contains(try hexUnit(at: index + 2))
                else { throw fail("a high surrogate escape without its low surrogate") }
                index += 6
            } else if (0xDC00...0xDFFF).contains(unit) {
                throw fail("a low surrogate escape without its high surrogate")
            }
        default:
            throw fail("an invalid escape")
        }
    }

    private func hexUnit(at offset: Int) throws(Failure) -> UInt16 {
        guard offset + 4 <= end else { throw Failure(reason: "the body ends inside an escape", offset: offset) }
        var unit: UInt16 = 0
        for position in offset..<(offset + 4) {
            let byte = base[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw Failure(reason: "an invalid \\u escape", offset: position)
            }
            unit = unit << 4 | UInt16(digit)
        }
        return unit
    }

    /// Validates the multi-byte UTF-8 sequence at `index` (RFC 3629: no overlong form, no surrogate,
    /// nothing above U+10FFFF).
    private mutating func utf8Sequence() throws(Failure) {
        let lead = base[index]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0:
            length = 3
            low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            high = 0x9F
        case 0xF0:
            length = 4
            low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            high = 0x8F
        default: throw fail("invalid UTF-8")
        }
        guard index + length <= end else { throw fail("invalid UTF-8 (cut)") }
        let second = base[index + 1]
        guard second >= low, second <= high else { throw fail("invalid UTF-8") }
        for offset in 2..<length where base[index + offset] & 0xC0 != 0x80 { throw fail("invalid UTF-8") }
        index += length
    }

    /// The text of a validated token.
    private func string(_ token: Token) -> String {
        Self.text(base: base, start: token.start, count: token.count, escaped: token.escaped)
    }

    /// The text of the validated string bytes at `start` (between the quotes), escapes undone when
    /// `escaped`.
    static func text(base: UnsafePointer<UInt8>, start: Int, count: Int, escaped: Bool) -> String {
        guard escaped else {
            return String(decoding: UnsafeBufferPointer(start: base + start, count: count), as: UTF8.self)
        }
        var scratch: [UInt8] = []
        scratch.reserveCapacity(count)
        var position = start
        let stop = start + count
        while position < stop {
            let byte = base[position]
            guard byte == .backslash else {
                scratch.append(byte)
                position += 1
                continue
            }
            let kind = base[position + 1]
            position += 2
            switch kind {
            case .letterB: scratch.append(0x08)
            case .letterF: scratch.append(0x0C)
            case .letterN: scratch.append(0x0A)
            case .letterR: scratch.append(0x0D)
            case .letterT: scratch.append(0x09)
            case .letterU:
                // Validated by `escape()`: a BMP unit, or a high surrogate followed by its low one.
                var scalar = UInt32(Self.hex(base + position))
                position += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    let low = UInt32(Self.hex(base + position + 2))
                    position += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                appendUTF8(scalar, to: &scratch)
            default: scratch.append(kind)
            }
        }
        return String(decoding: scratch, as: UTF8.self)
    }

    private static func hex(_ pointer: UnsafePointer<UInt8>) -> UInt16 {
        var unit: UInt16 = 0
        for offset in 0..<4 {
            let byte = pointer[offset]
            let digit = byte <= UInt8(ascii: "9") ? byte &- UInt8(ascii: "0") : (byte | 0x20) &- UInt8(ascii: "a") &+ 10
            unit = unit << 4 | UInt16(digit)
        }
        return unit
    }

    private static func appendUTF8(_ scalar: UInt32, to scratch: inout [UInt8]) {
        switch scalar {
        case ..<0x80:
            scratch.append(UInt8(scalar))
        case ..<0x800:
            scratch.append(UInt8(0xC0 | scalar >> 6))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        case ..<0x10000:
            scratch.append(UInt8(0xE0 | scalar >> 12))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | scalar >> 18))
            scratch.append(UInt8(0x80 | scalar >> 12 & 0x3F))
            scratch.append(UInt8(0x80 | scalar >> 6 & 0x3F))
            scratch.append(UInt8(0x80 | scalar & 0x3F))
        }
    }

    private func sameBytes(_ token: Token, _ bytes: [UInt8]) -> Bool {
        guard token.count == bytes.count else { return false }
        return bytes.withUnsafeBufferPointer { buffer in
            guard let address = buffer.baseAddress else { return true }
            return memcmp(base + token.start, address, token.count) == 0
        }
    }

    /// Whether the token's text is `word` (unescaping when needed).
    private func matches(_ token: Token, _ word: [UInt8]) -> Bool {
        if !token.escaped { return sameBytes(token, word) }
        return Array(string(token).utf8) == word
    }

    private func equals(_ token: Token, _ word: [UInt8]) -> Bool {
        !token.escaped && sameBytes(token, word)
    }

    // MARK: - Numbers

    /// Validates the number at `index` and returns its text as `NSNumber.stringValue` gives it: the
    /// literal's range, or an extra.
    ///
    /// An integer of up to 18 digits (not `-0`) is its own text; any other number (fraction, exponent,
    /// more digits, `-0`) is rare in Table API bodies and is read by `JSONSerialization` itself, so the
    /// text (`1.0`, `1000.0` for `1e3`, `1.5e+300`) and the rejection of out-of-range numbers are exactly
    /// the reference decoder's.
    private mutating func numberText(keeping: Bool = true) throws(Failure) -> TextRange {
        let start = index
        if index < end, base[index] == .minus { index += 1 }
        let integerStart = index
        guard index < end, base[index].isDigit else { throw fail("not a JSON value") }
        if base[index] == .zero {
            index += 1
        } else {
            while index < end, base[index].isDigit { index += 1 }
        }
        let integerDigits = index - integerStart
        var simple = integerDigits <= 18
        if index < end, base[index] == .dot {
            simple = false
            index += 1
            guard index < end, base[index].isDigit else { throw fail("a number without fraction digits") }
            while index < end, base[index].isDigit { index += 1 }
        }
        if index < end, base[index] | 0x20 == .letterE {
            simple = false
            index += 1
            if index < end, base[index] == .plus || base[index] == .minus { index += 1 }
            guard index < end, base[index].isDigit else { throw fail("a number without exponent digits") }
            while index < end, base[index].isDigit { index += 1 }
        }
        if index - start == 2, base[start] == .minus, base[start + 1] == .zero { simple = false }
        let literal = UnsafeBufferPointer(start: base + start, count: index - start)
        if simple { return TextRange(start: UInt32(start), count: UInt32(index - start), kind: .plain) }
        var array = Data([.openBracket])
        array.append(literal)
        array.append(.closeBracket)
        guard let parsed = try? JSONSerialization.jsonObject(with: array) as? [Any],
            let number = parsed.first as? NSNumber
        else {
            throw Failure(reason: "a number out of range", offset: start)
        }
        return keeping ? extra(number.stringValue) : .absent
    }

    private static let errorKey = Array("error".utf8)
    private static let valueKey = Array("value".utf8)
    private static let displayValueKey = Array("display_value".utf8)
    private static let linkKey = Array("link".utf8)
    private static let trueWord = Array("true".utf8)
    private static let falseWord = Array("false".utf8)
    private static let nullWord = Array("null".utf8)
}

extension UInt8 {
    fileprivate static let quote = UInt8(ascii: "\"")
    fileprivate static let backslash = UInt8(ascii: "\\")
    fileprivate static let slash = UInt8(ascii: "/")
    fileprivate static let openBrace = UInt8(ascii: "{")
    fileprivate static let closeBrace = UInt8(ascii: "}")
    fileprivate static let openBracket = UInt8(ascii: "[")
    fileprivate static let closeBracket = UInt8(ascii: "]")
    fileprivate static let colon = UInt8(ascii: ":")
    fileprivate static let comma = UInt8(ascii: ",")
    fileprivate static let minus = UInt8(ascii: "-")
    fileprivate static let plus = UInt8(ascii: "+")
    fileprivate static let dot = UInt8(ascii: ".")
    fileprivate static let zero = UInt8(ascii: "0")
    fileprivate static let letterB = UInt8(ascii: "b")
    fileprivate static let letterE = UInt8(ascii: "e")
    fileprivate static let letterF = UInt8(ascii: "f")
    fileprivate static let letterN = UInt8(ascii: "n")
    fileprivate static let letterR = UInt8(ascii: "r")
    fileprivate static let letterT = UInt8(ascii: "t")
    fileprivate static let letterU = UInt8(ascii: "u")

    fileprivate var isDigit: Bool { self >= UInt8(ascii: "0") && self <= UInt8(ascii: "9") }
}

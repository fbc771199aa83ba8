import Foundation

/// What one pass over a Table API response body found.
struct ResponseBodyScan: Sendable, Equatable {
    /// The shape of the top-level `result` member.
    enum ResultShape: Sendable, Equatable {
        case absent
        case array(count: Int)
        case object
        case other
    }

    /// Whether the first non-blank byte opens a JSON object or array.
    var startsLikeJSON = false
    /// Whether the body is one complete JSON object with nothing after it.
    var isComplete = false
    /// The shape of `result`.
    var result: ResultShape = .absent
    /// The greatest `sys_id` among the records of a `result` array (plain or `{"value": …}` form).
    var maxSysId: String?
    /// Whether the top-level object has an `error` member.
    var hasError = false
    /// `error.message`, when present.
    var errorMessage: String?
    /// `error.detail`, when present and not null.
    var errorDetail: String?
    /// Whether the body contains the transaction-quota cancellation text.
    var mentionsTransactionCancelled = false

    /// The text the instance writes when its quota rule cancels a transaction (ref §1.4).
    static let transactionCancelledText = "Transaction cancelled: maximum execution time exceeded"

    /// The scan of a complete body without `error` whose `result` is an array of `count` records, as a
    /// ``KeysetPageReading`` found it.
    static func completeArray(count: Int, maxSysId: String?) -> ResponseBodyScan {
        ResponseBodyScan(startsLikeJSON: true, isComplete: true, result: .array(count: count), maxSysId: maxSysId)
    }

    /// Whether the error is the transaction-quota cancellation.
    var isTransactionCancelled: Bool {
        mentionsTransactionCancelled || (errorMessage?.contains("Transaction cancelled") ?? false)
    }
}

/// Validates a response body in one pass without building objects, and extracts what the transport and
/// the keyset paginator need: completeness, the `result` shape and count, the largest `sys_id`, and the
/// `error` envelope. Allocation-free except for the few strings it returns.
enum ResponseBodyScanner {
    static func scan(_ data: Data) -> ResponseBodyScan {
        var scan = data.withUnsafeBytes { raw -> ResponseBodyScan in
            var parser = Parser(bytes: raw)
            return parser.scanDocument()
        }
        if !scan.isComplete || scan.hasError {
            scan.mentionsTransactionCancelled =
                data.range(of: Data(ResponseBodyScan.transactionCancelledText.utf8)) != nil
        }
        return scan
    }

    private struct Parser {
        let bytes: UnsafeRawBufferPointer
        var index = 0
        let maximumDepth = 512

        init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

        mutating func scanDocument() -> ResponseBodyScan {
            var scan = ResponseBodyScan()
            skipBlanks()
            guard index < bytes.count else { return scan }
            scan.startsLikeJSON = bytes[index] == UInt8(ascii: "{") || bytes[index] == UInt8(ascii: "[")
            guard bytes[index] == UInt8(ascii: "{") else {
                if scan.startsLikeJSON, skipValue(depth: 0) {
                    skipBlanks()
                    scan.isComplete = index == bytes.count
                    scan.result = .other
                }
                return scan
            }
            index += 1
            var first = true
            while true {
                guard let member = nextKey(after: &first) else { return scan }
                guard let key = member else { break }
                if equals(key, "result") {
                    guard scanResult(&scan) else { return scan }
                } else if equals(key, "error") {
                    scan.hasError = true
                    guard scanError(&scan) else { return scan }
                } else {
                    guard skipValue(depth: 1) else { return scan }
                }
            }
            skipBlanks()
            scan.isComplete = index == bytes.count
            return scan
        }

        mutating func scanResult(_ scan: inout ResponseBodyScan) -> Bool {
            guard index < bytes.count else { return false }
            switch bytes[index] {
            case UInt8(ascii: "["):
                index += 1
                var count = 0
                var best: Range<Int>?
                var first = true
                while true {
                    guard let more = nextElement(after: &first) else { return false }
                    guard more else { break }
                    if peek(UInt8(ascii: "{")) {
                        guard let sysId = scanRecord() else { return false }
                        if let candidate = sysId, best.map({ isGreater(candidate, than: $0) }) ?? true {
                            best = candidate
                        }
                    } else {
                        guard skipValue(depth: 2) else { return false }
                    }
                    count += 1
                }
                scan.result = .array(count: count)
                scan.maxSysId = best.map { text($0) }
                return true
            case UInt8(ascii: "{"):
                scan.result = .object
                return skipValue(depth: 1)
            default:
                scan.result = .other
                return skipValue(depth: 1)
            }
        }

        /// Scans one record object; returns the range of its sys_id text (wrapped in an optional so
        /// that "no sys_id" and "malformed" differ).
        mutating func scanRecord() -> Range<Int>?? {
            guard consume(UInt8(ascii: "{")) else { return nil }
            var sysId: Range<Int>?
            var first = true
            while true {
                guard let member = nextKey(after: &first) else { return nil }
                guard let key = member else { return .some(sysId) }
                if equals(key, "sys_id") {
                    if peek(UInt8(ascii: "\"")) {
                        guard let value = string() else { return nil }
                        sysId = value
                    } else if peek(UInt8(ascii: "{")) {
                        guard let value = scanValueObject() else { return nil }
                        sysId = value
                    } else {
                        guard skipValue(depth: 3) else { return nil }
                    }
                } else {
                    guard skipValue(depth: 3) else { return nil }
                }
            }
        }

        /// `{"display_value": …, "value": "<id>"}`: the range of `value` (or `display_value`).
        mutating func scanValueObject() -> Range<Int>?? {
            guard consume(UInt8(ascii: "{")) else { return nil }
            var value: Range<Int>?
            var display: Range<Int>?
            var first = true
            while true {
                guard let member = nextKey(after: &first) else { return nil }
                guard let key = member else { return .some(value ?? display) }
                if peek(UInt8(ascii: "\"")), equals(key, "value") || equals(key, "display_value") {
                    guard let text = string() else { return nil }
                    if equals(key, "value") { value = text } else { display = text }
                } else {
                    guard skipValue(depth: 4) else { return nil }
                }
            }
        }

        mutating func scanError(_ scan: inout ResponseBodyScan) -> Bool {
            guard peek(UInt8(ascii: "{")) else { return skipValue(depth: 1) }
            index += 1
            var first = true
            while true {
                guard let member = nextKey(after: &first) else { return false }
                guard let key = member else { return true }
                if peek(UInt8(ascii: "\"")), equals(key, "message") || equals(key, "detail") {
                    guard let value = string() else { return false }
                    if equals(key, "message") {
                        scan.errorMessage = unescaped(value)
                    } else {
                        scan.errorDetail = unescaped(value)
                    }
                } else {
                    guard skipValue(depth: 2) else { return false }
                }
            }
        }

        // MARK: - Walking objects and arrays

        /// In an object whose `{` was read, after its previous member's value (or at its start while
        /// `first`): the next member's key range with the cursor at its value; `.some(nil)` past the
        /// closing `}`; `nil` when the body is malformed there.
        mutating func nextKey(after first: inout Bool) -> Range<Int>?? {
            skipBlanks()
            if consume(UInt8(ascii: "}")) { return .some(nil) }
            if first {
                first = false
            } else {
                guard consume(UInt8(ascii: ",")) else { return nil }
                skipBlanks()
            }
            guard let key = string() else { return nil }
            skipBlanks()
            guard consume(UInt8(ascii: ":")) else { return nil }
            skipBlanks()
            return .some(key)
        }

        /// In an array whose `[` was read, after its previous element (or at its start while `first`):
        /// `true` with the cursor at the next element, `false` past the closing `]`, `nil` when malformed.
        mutating func nextElement(after first: inout Bool) -> Bool? {
            skipBlanks()
            if consume(UInt8(ascii: "]")) { return false }
            if first {
                first = false
            } else {
                guard consume(UInt8(ascii: ",")) else { return nil }
                skipBlanks()
            }
            return true
        }

        // MARK: - Lexing

        mutating func skipBlanks() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x0A, 0x0D, 0x09: index += 1
                default: return
                }
            }
        }

        func peek(_ byte: UInt8) -> Bool { index < bytes.count && bytes[index] == byte }

        mutating func consume(_ byte: UInt8) -> Bool {
            guard peek(byte) else { return false }
            index += 1
            return true
        }

        /// Reads a string token; returns the range between the quotes.
        mutating func string() -> Range<Int>? {
            guard consume(UInt8(ascii: "\"")) else { return nil }
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    let range = start..<index
                    index += 1
                    return range
                }
                if byte == UInt8(ascii: "\\") {
                    index += 2
                    continue
                }
                if byte < 0x20 { return nil }
                index += 1
            }
            return nil
        }

        mutating func skipValue(depth: Int) -> Bool {
            guard depth < maximumDepth, index < bytes.count else { return false }
            switch bytes[index] {
            case UInt8(ascii: "\""):
                return string() != nil
            case UInt8(ascii: "{"):
                index += 1
                var first = true
                while true {
                    guard let member = nextKey(after: &first) else { return false }
                    guard member != nil else { return true }
                    guard skipValue(depth: depth + 1) else { return false }
                }
            case UInt8(ascii: "["):
                index += 1
                var first = true
                while true {
                    guard let more = nextElement(after: &first) else { return false }
                    guard more else { return true }
                    guard skipValue(depth: depth + 1) else { return false }
                }
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            default:
                let start = index
                while index < bytes.count {
                    switch bytes[index] {
                    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
                        UInt8(ascii: "e"), UInt8(ascii: "E"):
                        index += 1
                    default:
                        return index > start
                    }
                }
                // A number running into the end of the body may be cut; the caller's closing bracket check fails.
                return index > start
            }
        }

        mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
            index += count
            return true
        }

        func equals(_ range: Range<Int>, _ word: StaticString) -> Bool {
            guard range.count == word.utf8CodeUnitCount else { return false }
            for offset in 0..<range.count where bytes[range.lowerBound + offset] != word.utf8Start[offset] {
                return false
            }
            return true
        }

        func isGreater(_ lhs: Range<Int>, than rhs: Range<Int>) -> Bool {
            let common = min(lhs.count, rhs.count)
            for offset in 0..<common {
                let a = bytes[lhs.lowerBound + offset]
                let b = bytes[rhs.lowerBound + offset]
                if a != b { return a > b }
            }
            return lhs.count > rhs.count
        }

        func text(_ range: Range<Int>) -> String {
            String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }

        func unescaped(_ range: Range<Int>) -> String {
            let raw = UnsafeRawBufferPointer(rebasing: bytes[range])
            guard raw.contains(UInt8(ascii: "\\")) else { return String(decoding: raw, as: UTF8.self) }
            var quoted = Data([UInt8(ascii: "\"")])
            quoted.append(contentsOf: raw)
            quoted.append(UInt8(ascii: "\""))
            return (try? JSONDecoder().decode(String.self, from: quoted)) ?? String(decoding: raw, as: UTF8.self)
        }
    }
}

import Foundation

/// Where a page body that is otherwise JSON holds bytes that are not UTF-8: which records and fields
/// they sit in, and the body with each invalid sequence replaced by U+FFFD.
///
/// Only a page that failed to decode is scanned, so valid pages cost nothing. The record of an
/// invalid sequence is the object it sits in that is an element of an array (the page's `result`
/// records; Table API values are strings or objects of value forms, never arrays), counted from 0;
/// its field is that object's key. The repaired body has the same records in the same order, so a
/// site's ``Site/record`` indexes the records decoded from ``repaired``.
struct InvalidUTF8Scan: Sendable {
    /// One field of one record holding invalid UTF-8.
    struct Site: Sendable, Hashable {
        /// The record's position in the page's record array.
        var record: Int
        /// The field (repaired if the key itself was damaged).
        var field: String
        /// The offset of the first invalid byte in the page.
        var offset: Int
    }

    /// The damaged fields in page order, one site per field of a record.
    var sites: [Site]
    /// The body with every invalid sequence replaced by U+FFFD (as `String(decoding:as:)` does).
    var repaired: Data
    /// The damaged fields of each damaged record, in page order (``sites`` by record, built once so a
    /// page whose every record is damaged is not searched once per record).
    private let fieldsByRecord: [Int: [String]]

    /// Scans `body`; `nil` when it is valid UTF-8, or when an invalid byte lies outside a record's
    /// string (the page is then broken beyond repair and fails as before).
    init?(_ body: Data) {
        let invalid = Self.invalidOffsets(body)
        guard !invalid.isEmpty, let sites = Self.sites(of: invalid, in: body) else { return nil }
        self.sites = sites
        fieldsByRecord = Dictionary(grouping: sites, by: \.record).mapValues { $0.map(\.field) }
        repaired = Data(String(decoding: body, as: UTF8.self).utf8)
    }

    /// The fields of record `index` that were damaged, in page order.
    func fields(ofRecord index: Int) -> [String] {
        fieldsByRecord[index] ?? []
    }

    /// The offsets where an invalid sequence starts.
    static func invalidOffsets(_ body: Data) -> [Int] {
        var offsets: [Int] = []
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = body.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded): offset += encoded.count
            case .error(let length):
                offsets.append(offset)
                offset += length
            case .emptyInput: return offsets
            }
        }
    }

    private enum Container { case object, array }

    /// Walks the JSON structure of `body` and names the record and field of each invalid offset.
    private static func sites(of invalid: [Int], in body: Data) -> [Site]? {
        let bytes = [UInt8](body)
        var pending = invalid[...]
        var sites: [Site] = []
        var stack: [Container] = []
        var keys: [(start: Int, end: Int)?] = []
        var elements: [Int] = []
        var expectsKey = false
        var index = 0
        while index < bytes.count, let next = pending.first {
            let byte = bytes[index]
            if next < index { return nil }  // an invalid byte between tokens: not a record's string
            switch byte {
            case UInt8(ascii: "\""):
                let start = index + 1
                var end = start
                while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
                    end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
                }
                guard end < bytes.count else { return nil }
                let isKey = stack.last == .object && expectsKey
                if isKey {
                    keys[keys.count - 1] = (start, end)
                    expectsKey = false
                }
                while let offset = pending.first, offset < end {
                    // The record: the innermost object that is an element of an array.
                    guard
                        let level = stack.indices.last(where: {
                            $0 > 0 && stack[$0] == .object && stack[$0 - 1] == .array
                        })
                    else { return nil }
                    // Its field: the record's current key, or this string when it is the key.
                    let span = level == stack.count - 1 && isKey ? (start, end) : keys[level]
                    guard let span else { return nil }
                    let field = String(decoding: bytes[span.0..<span.1], as: UTF8.self)
                    let site = Site(record: elements[level - 1], field: field, offset: offset)
                    if sites.last.map({ $0.record != site.record || $0.field != site.field }) ?? true {
                        sites.append(site)
                    }
                    pending.removeFirst()
                }
                index = end + 1
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                stack.append(byte == UInt8(ascii: "{") ? .object : .array)
                keys.append(nil)
                elements.append(0)
                expectsKey = byte == UInt8(ascii: "{")
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard !stack.isEmpty else { return nil }
                stack.removeLast()
                keys.removeLast()
                elements.removeLast()
            case UInt8(ascii: ","):
                if stack.last == .object { expectsKey = true }
                if stack.last == .array, !elements.isEmpty { elements[elements.count - 1] += 1 }
            default:
                break
            }
            index += 1
        }
        return pending.isEmpty ? sites : nil
    }
}

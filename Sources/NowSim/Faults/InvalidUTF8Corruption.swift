/// The `invalid-utf8` fault applied to one JSON response body: a raw byte that is not UTF-8 put
/// before one string value of one record, as an instance serves text that a bad import or a
/// Latin-1 integration stored. It acts on Table API answers in JSON only (never on an Aggregate
/// API answer or an XML body; see `NowSimInstance`).
///
/// The record is the one whose `sys_id` is ``sysID`` (or the body's first record having the field);
/// the value is ``field``'s (or the record's first string field other than `sys_id`); when the field
/// is sent in value forms (`display_value=all`, references) the first form is corrupted. The same
/// request gets the same corruption every time; a body without such a record (an XML body, another
/// page, an error) is left alone.
struct InvalidUTF8Corruption: Sendable, Equatable {
    /// The byte put in: Latin-1 `é`, a lead byte without its continuation bytes.
    static let byte: UInt8 = 0xE9

    /// The field to corrupt, or `nil` for the record's first string field other than `sys_id`.
    var field: String?
    /// The record to corrupt, or `nil` for the body's first record having the field.
    var sysID: String?

    /// `body` with the byte put in, or `body` itself when no record qualifies.
    func apply(to body: [UInt8]) -> [UInt8] {
        guard let offset = insertionOffset(in: body) else { return body }
        var corrupted = body
        corrupted.insert(Self.byte, at: offset)
        return corrupted
    }

    private enum Container { case object, array }

    /// Where the byte goes: just after the opening quote of the chosen value.
    ///
    /// A record is an object inside an array (a list's `result`) or the object under the root (a
    /// read's `result`). nowsim writes well-formed JSON, so a small structural walk suffices: it
    /// tracks containers, the current key of each object and whether a string is a key.
    func insertionOffset(in body: [UInt8]) -> Int? {
        var stack: [Container] = []
        var keys: [String?] = []
        var expectsKey = false
        var recordDepth: Int?
        var candidate: Int?
        var recordSysID: String?
        var index = 0
        while index < body.count {
            let byte = body[index]
            switch byte {
            case UInt8(ascii: "\""):
                let start = index + 1
                var end = start
                while end < body.count, body[end] != UInt8(ascii: "\"") {
                    end += body[end] == UInt8(ascii: "\\") ? 2 : 1
                }
                guard end < body.count else { return nil }
                if stack.last == .object, expectsKey {
                    keys[keys.count - 1] = String(decoding: body[start..<end], as: UTF8.self)
                    expectsKey = false
                } else if let depth = recordDepth, stack.count >= depth {
                    let recordKey = keys[depth - 1]
                    let isPlain = stack.count == depth
                    let isForm = stack.count == depth + 1 && stack.last == .object
                    if recordKey == "sys_id" {
                        if isPlain || (isForm && keys[depth] == "value") {
                            recordSysID = String(decoding: body[start..<end], as: UTF8.self)
                        }
                    } else if candidate == nil, isPlain || isForm, field == nil || field == recordKey {
                        candidate = start
                    }
                }
                index = end + 1
                continue
            case UInt8(ascii: "{"):
                stack.append(.object)
                keys.append(nil)
                expectsKey = true
                if recordDepth == nil, stack.count >= 2, stack.count == 2 || stack[stack.count - 2] == .array {
                    recordDepth = stack.count
                    candidate = nil
                    recordSysID = nil
                }
            case UInt8(ascii: "["):
                stack.append(.array)
                keys.append(nil)
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if byte == UInt8(ascii: "}"), stack.count == recordDepth {
                    if let candidate, sysID == nil || sysID == recordSysID { return candidate }
                    recordDepth = nil
                }
                guard !stack.isEmpty else { return nil }
                stack.removeLast()
                keys.removeLast()
            case UInt8(ascii: ","):
                if stack.last == .object { expectsKey = true }
            default:
                break
            }
            index += 1
        }
        return nil
    }
}

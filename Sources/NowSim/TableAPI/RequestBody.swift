import Foundation

/// The field values of a POST/PUT/PATCH body, as the strings the instance stores.
///
/// Accepts what instances accept: a JSON object, or an array whose first element is used (the rest
/// are ignored, ref §1.2), JSON numbers and booleans (stored as their text), `null` (clears the
/// field), objects carrying a `value` (as copied from a `display_value=all` response), and the
/// single-quoted pseudo-JSON of ServiceNow's own cURL samples.
struct RequestBody {
    /// Field name → value; `nil` clears the field.
    var fields: [String: String?]

    enum Failure: Error {
        case notJSON
        case notAnObject
    }

    /// Reads `bytes` as XML when `contentType` says so, else as JSON.
    init(bytes: [UInt8], contentType: String?) throws(Failure) {
        let type = contentType?.lowercased() ?? ""
        if type.hasPrefix("application/xml") || type.hasPrefix("text/xml") {
            guard let fields = XMLRequestBody.fields(from: bytes) else { throw .notJSON }
            self.init(fields: fields)
            return
        }
        try self.init(bytes: bytes)
    }

    private init(fields: [String: String?]) {
        self.fields = fields
    }

    init(bytes: [UInt8]) throws(Failure) {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            fields = [:]
            return
        }
        var parsed = try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        if parsed == nil, !bytes.contains(UInt8(ascii: "\"")), bytes.contains(UInt8(ascii: "'")) {
            let converted = bytes.map { $0 == UInt8(ascii: "'") ? UInt8(ascii: "\"") : $0 }
            parsed = try? JSONSerialization.jsonObject(with: Data(converted), options: [.fragmentsAllowed])
        }
        guard let parsed else { throw .notJSON }
        var object = parsed
        if let array = parsed as? [Any] {
            guard let first = array.first else { throw .notAnObject }
            object = first
        }
        guard let dictionary = object as? [String: Any] else { throw .notAnObject }
        var fields: [String: String?] = [:]
        for (name, value) in dictionary {
            fields[name] = Self.text(of: value)
        }
        self.fields = fields
    }

    private static func text(of value: Any) -> String? {
        switch value {
        case is NSNull: return nil
        case let string as String: return string.isEmpty ? nil : string
        case let number as NSNumber:
            // JSON booleans arrive as NSNumber too; on Linux their type encoding is `c` (char).
            if String(cString: number.objCType) == "c" { return number.boolValue ? "true" : "false" }
            if let integer = Int(exactly: number.doubleValue) { return String(integer) }
            return number.stringValue
        case let object as [String: Any]:
            return object["value"].flatMap { text(of: $0) }
        default: return String(describing: value)
        }
    }
}

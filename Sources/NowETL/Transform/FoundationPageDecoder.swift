import Foundation

/// A ``PageDecoding`` on Foundation's `JSONSerialization`: correct, not fast (8–12 MB/s on seeded incident
/// pages); the reference ``FastPageDecoder`` (the default) is tested against.
///
/// One known difference, found by fuzzing: on Linux, Foundation drops a raw U+FEFF that starts a
/// string (a key or a value) or directly follows an escape (`\"`, `\n`, `\u0041`, …): CoreFoundation
/// takes the start of each run of unescaped bytes for one that may carry a byte order mark. The
/// ``FastPageDecoder`` keeps the text as the instance sent it. An escaped `\ufeff` is kept by both.
public struct FoundationPageDecoder: PageDecoding {
    /// The dot path of the record array (`result`).
    public var path: [String]

    /// Creates a decoder for the records at the dot path `path` (default `result`).
    public init(path: String = "result") {
        self.path = path.split(separator: ".").map(String.init)
    }

    /// The records of the array at ``path``.
    public func records(in body: Data) throws(PageDecodingError) -> [Record] {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: body, options: [])
        } catch {
            throw PageDecodingError("the page is not valid JSON (\(body.count) bytes)")
        }
        var node: Any = root
        for component in path {
            guard let object = node as? [String: Any], let child = object[component] else {
                throw PageDecodingError("the page has no '\(path.joined(separator: "."))'")
            }
            node = child
        }
        guard let array = node as? [Any] else {
            throw PageDecodingError("'\(path.joined(separator: "."))' of the page is not an array")
        }
        var records: [Record] = []
        records.reserveCapacity(array.count)
        for element in array {
            guard let object = element as? [String: Any] else {
                throw PageDecodingError("a record of the page is not a JSON object")
            }
            var fields: [String: Record.Value] = [:]
            fields.reserveCapacity(object.count)
            for (name, value) in object {
                fields[name] = Self.value(value)
            }
            records.append(Record(fields: fields))
        }
        return records
    }

    private static func value(_ any: Any) -> Record.Value {
        switch any {
        case let text as String:
            return .text(text)
        case let object as [String: Any]:
            return .forms(
                value: object["value"].flatMap(scalarText), displayValue: object["display_value"].flatMap(scalarText),
                link: object["link"].flatMap(scalarText))
        case is NSNull:
            return .null
        default:
            return scalarText(any).map(Record.Value.text) ?? .null
        }
    }

    private static func scalarText(_ any: Any) -> String? {
        switch any {
        case let text as String: return text
        case is NSNull: return nil
        case let number as NSNumber: return number.stringValue
        default: return nil
        }
    }
}

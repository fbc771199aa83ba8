import Foundation

/// Arrays (and arrays of arrays) of ``SysIdentifiableModel`` values, for the `sys_id` key mapping.
protocol SysIdentifiableCollection {
    /// How many containers lie between the collection and its records (1 for `[Model]`).
    static var nestingDepth: Int { get }
}

extension Array: SysIdentifiableCollection where Element: SysIdentifiableModel {
    static var nestingDepth: Int { 2 }
}

/// Maps the Table API's `sys_id` key to the `sysId` property of ``SysIdentifiableModel`` records.
///
/// Only keys at the record level are renamed (a nested object's `sys_id` is left alone), and the
/// caller's own decoder settings are copied, so `.custom` coders keep their date strategies.
enum SysIdKeyMapping {
    static func decoder(basedOn base: JSONDecoder, recordDepth: Int) -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = base.dateDecodingStrategy
        decoder.dataDecodingStrategy = base.dataDecodingStrategy
        decoder.nonConformingFloatDecodingStrategy = base.nonConformingFloatDecodingStrategy
        decoder.userInfo = base.userInfo
        decoder.allowsJSON5 = base.allowsJSON5
        decoder.assumesTopLevelDictionary = base.assumesTopLevelDictionary
        switch base.keyDecodingStrategy {
        case .convertFromSnakeCase:
            // Already turns `sys_id` into `sysId` everywhere.
            decoder.keyDecodingStrategy = .convertFromSnakeCase
        case .custom(let convert):
            decoder.keyDecodingStrategy = .custom { path in
                if path.count == recordDepth, path.last?.stringValue == "sys_id" { return AnyCodingKey("sysId") }
                return convert(path)
            }
        default:
            decoder.keyDecodingStrategy = .custom { path in
                let last = path.last ?? AnyCodingKey("")
                if path.count == recordDepth, last.stringValue == "sys_id" { return AnyCodingKey("sysId") }
                return last
            }
        }
        return decoder
    }

    /// Encodes a model as the JSON object to send on create or update: the `sysId`/`sys_id` member
    /// is dropped, since the sys_id travels in the URL (update) or is assigned by the platform (create).
    static func encodeForWrite<Model: Encodable>(_ model: Model, coder: Coder) throws(NowDataError) -> Data {
        let data = try coder.encode(model)
        guard var object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return data }
        let removedProperty = object.removeValue(forKey: "sysId") != nil
        let removedKey = object.removeValue(forKey: "sys_id") != nil
        guard removedProperty || removedKey else { return data }
        do {
            return try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        } catch {
            throw .cannotEncodeModel(.invalidValue(model, .init(codingPath: [], debugDescription: "\(error)")))
        }
    }
}

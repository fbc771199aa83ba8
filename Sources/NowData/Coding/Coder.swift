import Foundation

/// A JSON encoder and decoder pair that share one coding strategy.
///
/// ``default`` handles the Table API's `yyyy-MM-dd HH:mm:ss` UTC date-times (see
/// ``Foundation/DateFormatter/nonISO8601UTC``); use ``custom(_:_:)`` for other date formats or key
/// strategies. Decoding can start at a dot-separated path into the JSON (`result`,
/// `result.user.photos`), so callers need no wrapper types for the `{"result": …}` envelope.
///
/// A custom coder, as the SDK documents it (encoder and decoder with the same strategy):
/// ```swift
/// let myEncoder = JSONEncoder()
/// myEncoder.dateEncodingStrategy = .formatted(.nonISO8601UTC)
/// let myDecoder = JSONDecoder()
/// myDecoder.dateDecodingStrategy = .formatted(.nonISO8601UTC)
///
/// let myCoder: Coder = .custom(myEncoder, myDecoder)
/// ```
public enum Coder: Sendable {
    /// Dates as `yyyy-MM-dd HH:mm:ss` in UTC (the Table API's value format), default keys.
    case `default`
    /// Your own encoder and decoder; both should use the same strategy.
    case custom(JSONEncoder, JSONDecoder)

    /// The encoder of this coder.
    public var encoder: JSONEncoder {
        switch self {
        case .default: return Coder.defaultEncoder
        case .custom(let encoder, _): return encoder
        }
    }

    /// The decoder of this coder.
    public var decoder: JSONDecoder {
        switch self {
        case .default: return Coder.defaultDecoder
        case .custom(_, let decoder): return decoder
        }
    }

    /// The encoder of this coder, by the SDK's name (the same object as ``encoder``).
    ///
    /// The SDK's update examples encode the stored model with it:
    /// ```swift
    /// let coder: Coder = .default
    /// let updated = try await tableService.update(user, in: "sys_user")
    /// let data = try coder.jsonEncoder.encode(updated)
    /// ```
    public var jsonEncoder: JSONEncoder { encoder }

    /// The decoder of this coder, by the SDK's name (the same object as ``decoder``).
    public var jsonDecoder: JSONDecoder { decoder }

    private static let defaultEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(TableAPIDateFormat.formatterCompatibleString(from: date))
        }
        return encoder
    }()

    private static let defaultDecoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = TableAPIDateFormat.formatterCompatibleDate(from: text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "Date string does not match format yyyy-MM-dd HH:mm:ss")
            }
            return date
        }
        return decoder
    }()

    /// Decodes `type` from the JSON value found at the dot-separated `path`.
    ///
    /// An empty path decodes the whole document. For ``SysIdentifiableModel`` types (and arrays of
    /// them) the records' `sys_id` key is mapped to the `sysId` property.
    /// - Throws: ``NowDataError/cannotDecodeModel(_:)`` when the path is missing or the value does not fit.
    public func decode<Model: Decodable>(_ type: Model.Type, from data: Data, path: String = Constants.resultPath)
        throws(NowDataError) -> Model
    {
        let components = DotPath.components(path)
        let decoder = decoderFor(Model.self, pathDepth: components.count)
        do {
            if components.isEmpty { return try decoder.decode(Model.self, from: data) }
            return try DotPath.$components.withValue(components) {
                try decoder.decode(DotPathBox<Model>.self, from: data).value
            }
        } catch let error as DecodingError {
            throw .cannotDecodeModel(error)
        } catch {
            throw .cannotDecodeModel(.dataCorrupted(.init(codingPath: [], debugDescription: "\(error)")))
        }
    }

    /// Encodes a value to JSON.
    /// - Throws: ``NowDataError/cannotEncodeModel(_:)``.
    public func encode<Value: Encodable>(_ value: Value) throws(NowDataError) -> Data {
        do {
            return try encoder.encode(value)
        } catch let error as EncodingError {
            throw .cannotEncodeModel(error)
        } catch {
            throw .cannotEncodeModel(.invalidValue(value, .init(codingPath: [], debugDescription: "\(error)")))
        }
    }

    /// The decoder to use for `Model`: the coder's own, or a copy that maps `sys_id` to `sysId` at the
    /// record level for ``SysIdentifiableModel`` types.
    private func decoderFor<Model>(_ type: Model.Type, pathDepth: Int) -> JSONDecoder {
        let recordDepth: Int
        if Model.self is any SysIdentifiableModel.Type {
            recordDepth = pathDepth + 1
        } else if let collection = Model.self as? any SysIdentifiableCollection.Type {
            recordDepth = pathDepth + collection.nestingDepth
        } else {
            return decoder
        }
        return SysIdKeyMapping.decoder(basedOn: decoder, recordDepth: recordDepth)
    }
}

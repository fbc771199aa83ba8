import Foundation

extension Data {
    /// Converts a single-record Table API response (`{"result": {…}}`) into a ``NowRecord``, as the SDK
    /// documents it: without `try`.
    ///
    /// A list response yields its first record. A body that holds no record yields an empty record
    /// (`sysId` empty, no fields); call ``decodeRecord(options:)`` to get the reason as an error instead.
    /// - Parameter options: how plain string values were requested; with only
    ///   ``FieldReadConfiguration/Options/displayValues`` a plain string is a display value, otherwise it
    ///   is the stored value.
    public func convertToRecord(options: FieldReadConfiguration.Options = []) -> NowRecord {
        (try? decodeRecord(options: options)) ?? NowRecord(sysId: "", fields: [:])
    }

    /// Converts a Table API response (`{"result": […]}` or `{"result": {…}}`) into ``NowRecord``s, as the
    /// SDK documents it: without `try`.
    ///
    /// A body that is not a Table API response yields no records; call ``decodeRecords(options:)`` to
    /// tell "no records" from "not a response".
    /// - Parameter options: see ``convertToRecord(options:)``.
    public func convertToRecords(options: FieldReadConfiguration.Options = []) -> [NowRecord] {
        (try? decodeRecords(options: options)) ?? []
    }

    /// Decodes a single-record Table API response into a ``NowRecord``, or says why it cannot.
    ///
    /// A list response yields its first record.
    /// - Parameter options: see ``convertToRecord(options:)``.
    /// - Throws: ``NowDataError/cannotParseResponse`` when there is no record,
    ///   ``NowDataError/cannotDecodeModel(_:)`` when a member has a shape no field can take.
    public func decodeRecord(options: FieldReadConfiguration.Options = []) throws(NowDataError) -> NowRecord {
        let envelope = try decodeEnvelope(options: options)
        guard let record = envelope.records.first else { throw .cannotParseResponse }
        return record
    }

    /// Decodes a Table API response into ``NowRecord``s, or says why it cannot.
    /// - Parameter options: see ``convertToRecord(options:)``.
    /// - Throws: ``NowDataError/cannotParseResponse`` when the body has no `result`,
    ///   ``NowDataError/cannotDecodeModel(_:)`` when a member has a shape no field can take.
    public func decodeRecords(options: FieldReadConfiguration.Options = []) throws(NowDataError) -> [NowRecord] {
        try decodeEnvelope(options: options).records
    }

    private func decodeEnvelope(options: FieldReadConfiguration.Options) throws(NowDataError) -> RecordEnvelope {
        let decoder = JSONDecoder()
        let plainIsDisplay = options.contains(.displayValues) && !options.contains(.actualValues)
        decoder.userInfo[RecordEnvelope.plainStringsAreDisplayValues] = plainIsDisplay
        do {
            return try decoder.decode(RecordEnvelope.self, from: self)
        } catch let error as DecodingError {
            if case .keyNotFound = error { throw .cannotParseResponse }
            throw .cannotDecodeModel(error)
        } catch {
            throw .cannotParseResponse
        }
    }
}

/// `{"result": [records]}` or `{"result": {record}}`.
private struct RecordEnvelope: Decodable {
    static let plainStringsAreDisplayValues = CodingUserInfoKey(rawValue: "nowdata.plainStringsAreDisplayValues")!

    let records: [NowRecord]

    enum CodingKeys: String, CodingKey { case result }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let many = try? container.decode([RecordBody].self, forKey: .result) {
            records = many.map(\.record)
        } else {
            records = [try container.decode(RecordBody.self, forKey: .result).record]
        }
    }
}

/// One record object; every member becomes a field, whatever its shape (ref §2.3).
private struct RecordBody: Decodable {
    let record: NowRecord

    init(from decoder: any Decoder) throws {
        let plainIsDisplay = decoder.userInfo[RecordEnvelope.plainStringsAreDisplayValues] as? Bool ?? false
        let container = try decoder.container(keyedBy: AnyCodingKey.self)
        var fields: [FieldName: NowRecord.Field] = [:]
        fields.reserveCapacity(container.allKeys.count)
        for key in container.allKeys {
            let name = key.stringValue
            var field = NowRecord.Field(name: name)
            if let text = try? container.decode(String.self, forKey: key) {
                if plainIsDisplay { field.displayValue = text } else { field.value = text }
            } else if let object = try? container.decode(FieldObject.self, forKey: key) {
                field.value = object.value
                field.displayValue = object.displayValue
                field.link = object.link
            } else if try container.decodeNil(forKey: key) {
                // JSON null: a field without value.
            } else {
                let scalar = try container.decode(ScalarText.self, forKey: key).text
                if plainIsDisplay { field.displayValue = scalar } else { field.value = scalar }
            }
            fields[name] = field
        }
        let sysIdField = fields["sys_id"]
        record = NowRecord(sysId: sysIdField?.value ?? sysIdField?.displayValue ?? "", fields: fields)
    }
}

/// `{"value": …, "display_value": …, "link": …}` with any subset of the members.
private struct FieldObject: Decodable {
    let value: String?
    let displayValue: String?
    let link: String?

    enum CodingKeys: String, CodingKey {
        case value
        case displayValue = "display_value"
        case link
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        value = try container.decodeIfPresent(ScalarText.self, forKey: .value)?.text
        displayValue = try container.decodeIfPresent(ScalarText.self, forKey: .displayValue)?.text
        link = try container.decodeIfPresent(String.self, forKey: .link)
    }
}

/// A JSON string, number or boolean as text (instances send strings; other producers may not).
private struct ScalarText: Decodable {
    let text: String

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let string = try? container.decode(String.self) {
            text = string
        } else if let bool = try? container.decode(Bool.self) {
            text = bool ? "true" : "false"
        } else if let int = try? container.decode(Int.self) {
            text = String(int)
        } else {
            text = String(try container.decode(Double.self))
        }
    }
}

/// A keyed container over a mapping; records every key it is asked about for unknown-key checks.
struct YAMLKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let node: YAMLNode
    let entries: [YAMLNode.Entry]
    let path: ConfigPath
    let codingPath: [any CodingKey]
    let context: YAMLDecodingContext

    var allKeys: [Key] { entries.compactMap { Key(stringValue: $0.key) } }

    func contains(_ key: Key) -> Bool {
        entry(for: key) != nil
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        context.isNull(try value(for: key))
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try context.decode(T.self, from: try value(for: key), codingPath: codingPath + [key])
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decode(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decode(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decode(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decode(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decode(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decode(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decode(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decode(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decode(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decode(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decode(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decode(type, key) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try decoder(for: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder(for: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        try decoder(for: PathKey(stringValue: "super"), recordAs: "super")
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        try decoder(for: key)
    }

    private func decode<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
        try context.decode(T.self, from: try value(for: key), codingPath: codingPath + [key])
    }

    private func decoder(for key: any CodingKey, recordAs name: String? = nil) throws -> YAMLNodeDecoder {
        context.tracker.access(path: path, key: name ?? key.stringValue)
        guard let entry = entries.first(where: { $0.key == key.stringValue }) else {
            throw context.missingKey(key.stringValue, node, codingPath)
        }
        return YAMLNodeDecoder(node: entry.value, codingPath: codingPath + [key], context: context)
    }

    private func entry(for key: Key) -> YAMLNode.Entry? {
        context.tracker.access(path: path, key: key.stringValue)
        return entries.first { $0.key == key.stringValue }
    }

    private func value(for key: Key) throws(ConfigError) -> YAMLNode {
        guard let entry = entry(for: key) else { throw context.missingKey(key.stringValue, node, codingPath) }
        return entry.value
    }
}

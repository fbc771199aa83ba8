/// An unkeyed container over a sequence.
struct YAMLUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let node: YAMLNode
    let items: [YAMLNode]
    let codingPath: [any CodingKey]
    let context: YAMLDecodingContext
    private(set) var currentIndex = 0

    init(node: YAMLNode, items: [YAMLNode], codingPath: [any CodingKey], context: YAMLDecodingContext) {
        self.node = node
        self.items = items
        self.codingPath = codingPath
        self.context = context
    }

    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    mutating func decodeNil() throws -> Bool {
        let item = try next()
        if context.isNull(item) {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let item = try next()
        let value = try context.decode(T.self, from: item, codingPath: codingPath + [PathKey(index: currentIndex)])
        currentIndex += 1
        return value
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try decode(type, 0) }
    mutating func decode(_ type: String.Type) throws -> String { try decode(type, 0) }
    mutating func decode(_ type: Double.Type) throws -> Double { try decode(type, 0) }
    mutating func decode(_ type: Float.Type) throws -> Float { try decode(type, 0) }
    mutating func decode(_ type: Int.Type) throws -> Int { try decode(type, 0) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try decode(type, 0) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try decode(type, 0) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try decode(type, 0) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try decode(type, 0) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try decode(type, 0) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try decode(type, 0) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try decode(type, 0) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try decode(type, 0) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try decode(type, 0) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let container = try nestedDecoder().container(keyedBy: type)
        currentIndex += 1
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let container = try nestedDecoder().unkeyedContainer()
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let decoder = try nestedDecoder()
        currentIndex += 1
        return decoder
    }

    /// The generic decode under another name, so the primitive overloads above do not call themselves.
    private mutating func decode<T: Decodable>(_ type: T.Type, _: Int) throws -> T {
        let item = try next()
        let value = try context.decode(T.self, from: item, codingPath: codingPath + [PathKey(index: currentIndex)])
        currentIndex += 1
        return value
    }

    private func nestedDecoder() throws -> YAMLNodeDecoder {
        let item = try next()
        return YAMLNodeDecoder(node: item, codingPath: codingPath + [PathKey(index: currentIndex)], context: context)
    }

    private func next() throws(ConfigError) -> YAMLNode {
        guard currentIndex < items.count else {
            throw ConfigError(
                kind: .missingKey, file: context.document.file, at: node.endMark,
                message: "expected more than \(items.count) items \(ConfigPath(codingPath: codingPath).inPhrase)")
        }
        return items[currentIndex]
    }
}

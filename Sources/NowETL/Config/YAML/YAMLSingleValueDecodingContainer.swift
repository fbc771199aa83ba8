/// A single-value container over any node.
struct YAMLSingleValueDecodingContainer: SingleValueDecodingContainer {
    let node: YAMLNode
    let codingPath: [any CodingKey]
    let context: YAMLDecodingContext

    func decodeNil() -> Bool { context.isNull(node) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try context.decode(T.self, from: node, codingPath: codingPath)
    }

    func decode(_ type: Bool.Type) throws -> Bool { try context.bool(node, codingPath) }
    func decode(_ type: String.Type) throws -> String { try context.string(node, codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try context.floatingPoint(type, node, codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try context.floatingPoint(type, node, codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try context.integer(type, node, codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try context.integer(type, node, codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try context.integer(type, node, codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try context.integer(type, node, codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try context.integer(type, node, codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try context.integer(type, node, codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try context.integer(type, node, codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try context.integer(type, node, codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try context.integer(type, node, codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try context.integer(type, node, codingPath) }
}

/// The `Decoder` handed to `init(from:)` for one node.
struct YAMLNodeDecoder: Decoder {
    let node: YAMLNode
    let codingPath: [any CodingKey]
    let context: YAMLDecodingContext

    var userInfo: [CodingUserInfoKey: Any] { context.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard let entries = node.entries else { throw context.mismatch(expected: "a mapping", node, codingPath) }
        let path = ConfigPath(codingPath: codingPath)
        context.tracker.open(
            path: path, entries: entries, accepts: { Key(stringValue: $0) != nil },
            candidates: YAMLDecodingContext.keyNames(of: Key.self))
        return KeyedDecodingContainer(
            YAMLKeyedDecodingContainer<Key>(
                node: node, entries: entries, path: path, codingPath: codingPath, context: context))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard let items = node.items else {
            var hint: String?
            if let text = node.scalar?.text, text.contains(",") {
                hint = "write a list such as [\(text)]"
            }
            throw context.mismatch(expected: "a list", node, codingPath, hint: hint)
        }
        return YAMLUnkeyedDecodingContainer(node: node, items: items, codingPath: codingPath, context: context)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        YAMLSingleValueDecodingContainer(node: node, codingPath: codingPath, context: context)
    }
}

import Foundation

/// Decoding at a dot-separated path (`result.user.photos`).
enum DotPath {
    /// The path of the decode in progress; a task-local so that shared decoders stay thread-safe.
    @TaskLocal static var components: [String] = []

    /// Splits `result.user.photos` into its keys; the empty path has none.
    static func components(_ path: String) -> [String] {
        path.split(separator: ".", omittingEmptySubsequences: true).map(String.init)
    }
}

/// A coding key made from any string or integer.
struct AnyCodingKey: CodingKey, Hashable {
    var stringValue: String
    var intValue: Int?

    init(_ string: String) {
        stringValue = string
        intValue = nil
    }

    init?(stringValue: String) { self.init(stringValue) }

    init?(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }
}

/// Decodes `Value` found under the keys of ``DotPath/components``.
struct DotPathBox<Value: Decodable>: Decodable {
    let value: Value

    init(from decoder: any Decoder) throws {
        let keys = DotPath.components
        guard let last = keys.last else {
            value = try Value(from: decoder)
            return
        }
        var container = try decoder.container(keyedBy: AnyCodingKey.self)
        for key in keys.dropLast() {
            container = try container.nestedContainer(keyedBy: AnyCodingKey.self, forKey: AnyCodingKey(key))
        }
        value = try container.decode(Value.self, forKey: AnyCodingKey(last))
    }
}

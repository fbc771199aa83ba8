extension PipelineSchema {
    /// The pipeline file as a JSON Schema (draft-07, which YAML language servers read), pretty-printed
    /// with keys in a fixed order, ending with a line break: `nowetl schema`.
    ///
    /// What the schema checks: every mapping's keys (a misspelt key is an error), required keys, types,
    /// ranges, allowed values, and the exactly-one and at-most-one groups. What only `nowetl validate`
    /// checks: everything that depends on other keys (`{table}` in paths, incremental outputs, `order`
    /// naming the tables), encoded queries, readable files. Every scalar may also be a `${VAR}`
    /// reference, which the schema accepts as text.
    public static func jsonSchema() -> String {
        var root = object(pipeline)
        root.insert(("$schema", .string("http://json-schema.org/draft-07/schema#")), at: 0)
        root.insert(
            ("title", .string("nowetl pipeline file, version \(PipelineConfiguration.supportedVersion)")), at: 1)
        root.append(("definitions", .object([("variable", variable)])))
        var text = ""
        JSONSchemaValue.object(root).write(to: &text, indent: "")
        return text + "\n"
    }

    private static func object(_ mapping: Mapping) -> [(String, JSONSchemaValue)] {
        var members: [(String, JSONSchemaValue)] = [
            ("type", .string("object")),
            ("description", .string(plain(mapping.summary))),
            ("properties", .object(mapping.keys.map { ($0.name, property($0)) })),
            ("additionalProperties", .bool(false)),
        ]
        let required = mapping.keys.filter(\.required).map(\.name)
        if !required.isEmpty { members.append(("required", .array(required.map(JSONSchemaValue.string)))) }
        var constraints: [JSONSchemaValue] = []
        for group in mapping.exactlyOne {
            constraints.append(
                .object([("oneOf", .array(group.map { .object([("required", .array([.string($0)]))]) }))]))
        }
        for group in mapping.atMostOne {
            let pairs = group.indices.flatMap { first in group.indices.filter { $0 > first }.map { (first, $0) } }
            for (first, second) in pairs {
                constraints.append(
                    .object([("not", .object([("required", .array([.string(group[first]), .string(group[second])]))]))])
                )
            }
        }
        if !constraints.isEmpty { members.append(("allOf", .array(constraints))) }
        return members
    }

    private static func property(_ key: Key) -> JSONSchemaValue {
        var description = plain(key.summary)
        if let defaultText = key.defaultText { description += " Default: \(plain(defaultText))." }
        // A nested mapping's own summary gives way to the key's, which says what it is for here.
        var members = schema(key.value).filter { $0.0 != "description" }
        members.insert(("description", .string(description)), at: 0)
        return .object(members)
    }

    /// Text holding a `${VAR}` reference, which substitution may turn into any scalar.
    private static let variable: JSONSchemaValue = .object([
        ("description", .string("A ${VAR} reference, substituted before the value is read.")),
        ("type", .string("string")), ("pattern", .string(variablePattern)),
    ])

    /// A scalar of another type, or a `${VAR}` that becomes one.
    private static func orVariable(_ members: [(String, JSONSchemaValue)]) -> [(String, JSONSchemaValue)] {
        [("anyOf", .array([.object(members), .object([("$ref", .string("#/definitions/variable"))])]))]
    }

    private static func schema(_ value: Value) -> [(String, JSONSchemaValue)] {
        switch value {
        case .string(let pattern?):
            return orVariable([("type", .string("string")), ("pattern", .string(pattern))])
        case .string(nil):
            return [("type", .string("string"))]
        case .integer(let range):
            var members: [(String, JSONSchemaValue)] = [("type", .string("integer"))]
            if let range {
                members.append(("minimum", .integer(range.lowerBound)))
                if range.upperBound != Int.max { members.append(("maximum", .integer(range.upperBound))) }
            }
            return orVariable(members)
        case .number(let range, let exclusiveMinimum):
            var members: [(String, JSONSchemaValue)] = [("type", .string("number"))]
            if let range {
                members += [("minimum", .number(range.lowerBound)), ("maximum", .number(range.upperBound))]
            }
            if let exclusiveMinimum { members.append(("exclusiveMinimum", .number(exclusiveMinimum))) }
            return orVariable(members)
        case .boolean:
            return orVariable([("type", .string("boolean"))])
        case .choice(let values):
            return orVariable([("enum", .array(values.map(JSONSchemaValue.string)))])
        case .list(let item, let minimum):
            var members: [(String, JSONSchemaValue)] = [("type", .string("array")), ("items", .object(schema(item)))]
            if minimum > 0 { members.append(("minItems", .integer(minimum))) }
            return members
        case .mapping(let mapping):
            return object(mapping)
        case .dictionary(_, let item):
            return [("type", .string("object")), ("additionalProperties", .object(schema(item)))]
        case .either(let forms):
            return [("anyOf", .array(forms.map { .object(schema($0)) }))]
        case .octalMode:
            return [
                (
                    "anyOf",
                    .array([
                        .object([("type", .string("string")), ("pattern", .string("^0?[0-7]{3}$"))]),
                        .object([("type", .string("integer"))]),
                    ])
                )
            ]
        }
    }

    /// Reference text without its Markdown code marks (editors show descriptions as plain text).
    private static func plain(_ text: String) -> String {
        text.replacingOccurrences(of: "`", with: "")
    }
}

/// A JSON value with members in a chosen order, written by hand so the schema's bytes stay the same
/// from one build to the next.
enum JSONSchemaValue {
    case string(String)
    case integer(Int)
    case number(Double)
    case bool(Bool)
    case array([JSONSchemaValue])
    case object([(String, JSONSchemaValue)])

    /// Appends the value, pretty-printed with two spaces per level, starting at `indent`.
    func write(to text: inout String, indent: String) {
        let inner = indent + "  "
        switch self {
        case .string(let value): text += Self.quoted(value)
        case .integer(let value): text += String(value)
        case .number(let value):
            text += value.rounded() == value && abs(value) < 1e15 ? String(Int(value)) : String(value)
        case .bool(let value): text += value ? "true" : "false"
        case .array(let items):
            guard !items.isEmpty else {
                text += "[]"
                return
            }
            text += "[\n"
            for (index, item) in items.enumerated() {
                text += inner
                item.write(to: &text, indent: inner)
                text += index == items.count - 1 ? "\n" : ",\n"
            }
            text += indent + "]"
        case .object(let members):
            guard !members.isEmpty else {
                text += "{}"
                return
            }
            text += "{\n"
            for (index, (name, value)) in members.enumerated() {
                text += inner + Self.quoted(name) + ": "
                value.write(to: &text, indent: inner)
                text += index == members.count - 1 ? "\n" : ",\n"
            }
            text += indent + "}"
        }
    }

    /// `value` as a JSON string literal (the escapes ``JSONText`` writes).
    private static func quoted(_ value: String) -> String {
        var buffer = ByteBuffer(capacity: value.utf8.count + 2)
        JSONText.append(value, to: &buffer)
        return String(decoding: buffer.bytes, as: UTF8.self)
    }
}

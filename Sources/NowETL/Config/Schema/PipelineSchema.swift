/// The pipeline file's keys as data: every mapping, key, type, default and allowed value, with a
/// sentence or two on each — what `nowetl schema` prints as a JSON Schema and as the pipeline-file
/// reference (`docs/reference/pipeline.md`).
///
/// The decoding types (``PipelineConfiguration`` and the types it holds) stay the authority on what a
/// file means; this description is checked against them by a test that loads pipelines touching every
/// mapping and compares the keys each `CodingKey` type accepts with the keys listed here, so neither
/// can gain or lose a key alone. Allowed values and ranges come from the decoding types' own
/// enumerations and constants.
public enum PipelineSchema {
    /// A value a key takes.
    public indirect enum Value: Sendable {
        /// Text. `pattern` is a regular expression (ECMA-262, as JSON Schema uses) the text must match.
        case string(pattern: String? = nil)
        /// A whole number in `range` (`nil`: any).
        case integer(ClosedRange<Int>?)
        /// A number in `range` (`nil`: any); `exclusiveMinimum` for "above 0".
        case number(ClosedRange<Double>?, exclusiveMinimum: Double? = nil)
        /// `true` or `false`.
        case boolean
        /// One of the listed strings.
        case choice([String])
        /// A list of values, at least `minimum` of them.
        case list(Value, minimum: Int = 0)
        /// A mapping of known keys.
        case mapping(Mapping)
        /// A mapping whose keys are names the file chooses (`coalesce: { sys_user: [user_name] }`).
        case dictionary(key: String, Value)
        /// Any one of several forms (`attachments: true` or a mapping).
        case either([Value])
        /// The file-mode string `"0640"`, which YAML may also read as a number when unquoted.
        case octalMode
    }

    /// A mapping of known keys: `source:`, a table, an output.
    public struct Mapping: Sendable {
        /// Where it appears, as the reference's heading says it (`source`, `tables[]`,
        /// `outputs[].csv`).
        public var path: String
        /// What it is for.
        public var summary: String
        /// Its keys, in the order the reference lists them.
        public var keys: [Key]
        /// Groups of keys of which exactly one must be present (`basic` or `oauth`).
        public var exactlyOne: [[String]] = []
        /// Groups of keys of which at most one may be present (`password` or `password_file`).
        public var atMostOne: [[String]] = []
        /// A YAML example of the mapping, as it appears under its key.
        public var example: String?
    }

    /// One key of a mapping.
    public struct Key: Sendable {
        /// The key as written.
        public var name: String
        /// What it takes.
        public var value: Value
        /// Whether the mapping must have it.
        public var required = false
        /// The default as written in a file, or what happens without the key.
        public var defaultText: String?
        /// What it does, in sentences.
        public var summary: String
    }

    /// The `${VAR}` form every scalar may take in place of its value: substitution happens before a
    /// number, boolean or choice is read, so `page_size: ${PAGE_SIZE:-1000}` is an integer.
    public static let variablePattern = #"\$\{[A-Za-z_][A-Za-z0-9_]*(:-[^}]*)?\}"#
}

extension PipelineSchema.Key {
    /// A key that may be left out.
    static func optional(
        _ name: String, _ value: PipelineSchema.Value, default defaultText: String? = nil, _ summary: String
    ) -> Self {
        Self(name: name, value: value, required: false, defaultText: defaultText, summary: summary)
    }

    /// A key the mapping must have.
    static func required(_ name: String, _ value: PipelineSchema.Value, _ summary: String) -> Self {
        Self(name: name, value: value, required: true, defaultText: nil, summary: summary)
    }
}

extension PipelineSchema.Value {
    /// The raw values of a `String` enumeration, in declaration order.
    static func choice<E: CaseIterable & RawRepresentable>(of type: E.Type) -> Self where E.RawValue == String {
        .choice(type.allCases.map(\.rawValue))
    }

    /// A list of names (`fields:`, `journal:`).
    static let names = Self.list(.string(), minimum: 1)
}

import CYAML

/// libyaml's event parser behind the wall: owns one `yaml_parser_t` and a copy of the input, frees
/// both in `deinit`, and hands out events as Swift values.
///
/// Not thread-safe and not `Sendable`: one reader uses it from start to end on one thread.
final class LibYAMLParser {
    /// One parsing event, with libyaml's 0-based marks already turned into 1-based ones.
    enum Event {
        case streamStart
        case streamEnd
        case documentStart(YAMLNode.Mark)
        case documentEnd
        case alias(anchor: String, mark: YAMLNode.Mark, end: YAMLNode.Mark)
        case scalar(Scalar)
        case sequenceStart(Collection)
        case sequenceEnd(YAMLNode.Mark)
        case mappingStart(Collection)
        case mappingEnd(YAMLNode.Mark)
    }

    /// A scalar event's payload.
    struct Scalar {
        var text: String
        var style: YAMLNode.Scalar.Style
        var anchor: String?
        var tag: String?
        var mark: YAMLNode.Mark
        var end: YAMLNode.Mark
    }

    /// A collection-start event's payload.
    struct Collection {
        var anchor: String?
        var tag: String?
        var mark: YAMLNode.Mark
    }

    /// libyaml's description of why parsing stopped.
    struct Failure: Error {
        enum Stage {
            /// The bytes are not valid UTF-8 (or UTF-16); `byteOffset` says where.
            case reader(byteOffset: Int, value: Int32)
            /// The scanner or parser failed at `mark`.
            case grammar(mark: YAMLNode.Mark)
            /// libyaml ran out of memory or hit an internal limit.
            case other
        }
        var stage: Stage
        var problem: String
        var context: String?
        var contextMark: YAMLNode.Mark?
    }

    private let parser: UnsafeMutablePointer<yaml_parser_t>
    private let input: UnsafeMutableBufferPointer<UInt8>

    /// Prepares a parser over a copy of `bytes` (libyaml keeps a pointer to its input).
    init(bytes: [UInt8]) {
        parser = .allocate(capacity: 1)
        parser.initialize(to: yaml_parser_t())
        input = .allocate(capacity: max(bytes.count, 1))
        _ = input.initialize(from: bytes)
        // yaml_parser_initialize only fails when malloc does; the first parse call then reports it.
        _ = yaml_parser_initialize(parser)
        yaml_parser_set_input_string(parser, input.baseAddress, bytes.count)
    }

    deinit {
        yaml_parser_delete(parser)
        parser.deinitialize(count: 1)
        parser.deallocate()
        input.deallocate()
    }

    /// The next event, or libyaml's failure.
    func next() throws(Failure) -> Event {
        var event = yaml_event_t()
        guard yaml_parser_parse(parser, &event) == 1 else { throw failure() }
        defer { yaml_event_delete(&event) }
        let mark = Self.mark(event.start_mark)
        let end = Self.mark(event.end_mark)
        switch event.type {
        case YAML_STREAM_START_EVENT:
            return .streamStart
        case YAML_STREAM_END_EVENT:
            return .streamEnd
        case YAML_DOCUMENT_START_EVENT:
            return .documentStart(mark)
        case YAML_DOCUMENT_END_EVENT:
            return .documentEnd
        case YAML_ALIAS_EVENT:
            return .alias(anchor: Self.string(event.data.alias.anchor) ?? "", mark: mark, end: end)
        case YAML_SCALAR_EVENT:
            let data = event.data.scalar
            let text =
                data.length == 0
                ? "" : String(decoding: UnsafeBufferPointer(start: data.value, count: data.length), as: UTF8.self)
            let style: YAMLNode.Scalar.Style =
                switch data.style {
                case YAML_SINGLE_QUOTED_SCALAR_STYLE: .singleQuoted
                case YAML_DOUBLE_QUOTED_SCALAR_STYLE: .doubleQuoted
                case YAML_LITERAL_SCALAR_STYLE: .literal
                case YAML_FOLDED_SCALAR_STYLE: .folded
                default: .plain
                }
            return .scalar(
                Scalar(
                    text: text, style: style, anchor: Self.string(data.anchor), tag: Self.string(data.tag),
                    mark: mark, end: end))
        case YAML_SEQUENCE_START_EVENT:
            let data = event.data.sequence_start
            return .sequenceStart(Collection(anchor: Self.string(data.anchor), tag: Self.string(data.tag), mark: mark))
        case YAML_SEQUENCE_END_EVENT:
            return .sequenceEnd(end)
        case YAML_MAPPING_START_EVENT:
            let data = event.data.mapping_start
            return .mappingStart(Collection(anchor: Self.string(data.anchor), tag: Self.string(data.tag), mark: mark))
        case YAML_MAPPING_END_EVENT:
            return .mappingEnd(end)
        default:
            throw Failure(stage: .other, problem: "unexpected libyaml event \(event.type.rawValue)")
        }
    }

    private func failure() -> Failure {
        let state = parser.pointee
        let problem = Self.string(state.problem) ?? "unknown YAML error"
        let context = Self.string(state.context)
        switch state.error {
        case YAML_READER_ERROR:
            return Failure(
                stage: .reader(byteOffset: state.problem_offset, value: state.problem_value), problem: problem)
        case YAML_SCANNER_ERROR, YAML_PARSER_ERROR:
            return Failure(
                stage: .grammar(mark: Self.mark(state.problem_mark)), problem: problem, context: context,
                contextMark: context == nil ? nil : Self.mark(state.context_mark))
        case YAML_MEMORY_ERROR:
            return Failure(stage: .other, problem: "out of memory while reading YAML")
        default:
            return Failure(stage: .other, problem: problem)
        }
    }

    private static func mark(_ mark: yaml_mark_t) -> YAMLNode.Mark {
        YAMLNode.Mark(line: mark.line + 1, column: mark.column + 1)
    }

    private static func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        guard let pointer else { return nil }
        return String(cString: pointer)
    }

    private static func string(_ pointer: UnsafePointer<CChar>?) -> String? {
        guard let pointer else { return nil }
        return String(cString: pointer)
    }
}

extension LibYAMLParser.Failure {
    init(stage: Stage, problem: String) {
        self.init(stage: stage, problem: problem, context: nil, contextMark: nil)
    }
}

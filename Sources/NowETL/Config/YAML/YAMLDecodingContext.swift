import NowData

/// What all decoders and containers of one ``YAMLDecoder/decode(_:from:)`` call share: the
/// document, the environment, the key tracker, and the rules for reading scalars.
final class YAMLDecodingContext {
    /// A scalar's text after `${VAR}` substitution, with what messages need to describe it.
    struct ScalarText {
        var text: String
        var scalar: YAMLNode.Scalar
        /// Whether substitution changed the text (messages then show the text as written).
        var wasSubstituted: Bool
        /// Null after substitution (`~`, `null`, empty; plain scalars only).
        var isNull: Bool { YAMLNode.Scalar(text: text, style: scalar.style, isPlain: scalar.isPlain).isNull }
    }

    let document: YAMLDocument
    let interpolation: EnvironmentInterpolation
    let userInfo: [CodingUserInfoKey: Any]
    let tracker = KeyUsageTracker()

    init(document: YAMLDocument, interpolation: EnvironmentInterpolation, userInfo: [CodingUserInfoKey: any Sendable]) {
        self.document = document
        self.interpolation = interpolation
        self.userInfo = userInfo
    }

    // MARK: Values

    /// Decodes any `Decodable` at a node: primitives directly, everything else through its
    /// `init(from:)`.
    func decode<T: Decodable>(_ type: T.Type, from node: YAMLNode, codingPath: [any CodingKey]) throws -> T {
        if T.self == String.self { return try string(node, codingPath) as! T }
        if T.self == Bool.self { return try bool(node, codingPath) as! T }
        if T.self == Double.self { return try floatingPoint(Double.self, node, codingPath) as! T }
        if T.self == Float.self { return try floatingPoint(Float.self, node, codingPath) as! T }
        if let integerType = T.self as? any FixedWidthInteger.Type {
            return try integer(integerType, node, codingPath) as! T
        }
        if let enumeration = T.self as? any CaseIterable.Type, let rawValues = Self.stringRawValues(of: enumeration) {
            try checkEnumeration(rawValues, node, codingPath)
        }
        return try T(from: YAMLNodeDecoder(node: node, codingPath: codingPath, context: self))
    }

    /// Whether a node is null; substitution failures count as "not null" so the decode that
    /// follows reports them.
    func isNull(_ node: YAMLNode) -> Bool {
        guard let scalar = node.scalar, scalar.isPlain else { return false }
        guard let text = try? interpolation.expand(scalar.text) else { return false }
        return YAMLNode.Scalar(text: text, style: .plain).isNull
    }

    /// A scalar's substituted text; errors for collections and substitution failures.
    func scalarText(_ node: YAMLNode, _ codingPath: [any CodingKey], expected: String) throws(ConfigError)
        -> ScalarText
    {
        guard let scalar = node.scalar else { throw mismatch(expected: expected, node, codingPath) }
        do {
            let text = try interpolation.expand(scalar.text)
            return ScalarText(text: text, scalar: scalar, wasSubstituted: text != scalar.text)
        } catch {
            throw environmentError(error, node, codingPath)
        }
    }

    func string(_ node: YAMLNode, _ codingPath: [any CodingKey]) throws(ConfigError) -> String {
        let value = try scalarText(node, codingPath, expected: "a string")
        if value.isNull {
            let hint = value.text.isEmpty ? nil : "write \"\(value.text)\" in quotes for the text"
            throw mismatch(expected: "a string", node, codingPath, value: value, hint: hint)
        }
        return value.text
    }

    func bool(_ node: YAMLNode, _ codingPath: [any CodingKey]) throws(ConfigError) -> Bool {
        let expected = "true or false"
        let value = try scalarText(node, codingPath, expected: expected)
        if value.scalar.isPlain {
            if value.text == "true" { return true }
            if value.text == "false" { return false }
        }
        let lowered = value.text.lowercased()
        var hint: String?
        if !value.scalar.isPlain, lowered == "true" || lowered == "false" {
            hint = "remove the quotes"
        } else if ["yes", "no", "on", "off", "y", "n", "true", "false"].contains(lowered) {
            hint =
                "write true or false (YAML 1.1 words such as yes, no, on and off, and other spellings, are not accepted)"
        }
        throw mismatch(expected: expected, node, codingPath, value: value, hint: hint)
    }

    func integer<I: FixedWidthInteger>(_ type: I.Type, _ node: YAMLNode, _ codingPath: [any CodingKey])
        throws(ConfigError) -> I
    {
        let expected = I.isSigned ? "an integer" : "a non-negative integer"
        let value = try scalarText(node, codingPath, expected: expected)
        let looksLikeInteger = Self.isDecimalInteger(value.text)
        if value.scalar.isPlain, looksLikeInteger {
            if let number = I(value.text, radix: 10) { return number }
            throw mismatch(expected: expected, node, codingPath, value: value, hint: "it is out of range")
        }
        let hint = !value.scalar.isPlain && looksLikeInteger ? "remove the quotes" : nil
        throw mismatch(expected: expected, node, codingPath, value: value, hint: hint)
    }

    func floatingPoint<F: BinaryFloatingPoint & LosslessStringConvertible>(
        _ type: F.Type, _ node: YAMLNode, _ codingPath: [any CodingKey]
    ) throws(ConfigError) -> F {
        let expected = "a number"
        let value = try scalarText(node, codingPath, expected: expected)
        let looksLikeNumber = Self.isDecimalNumber(value.text)
        if value.scalar.isPlain, looksLikeNumber, let number = F(value.text), number.isFinite { return number }
        let hint = !value.scalar.isPlain && looksLikeNumber ? "remove the quotes" : nil
        throw mismatch(expected: expected, node, codingPath, value: value, hint: hint)
    }

    private func checkEnumeration(_ rawValues: [String], _ node: YAMLNode, _ codingPath: [any CodingKey])
        throws(ConfigError)
    {
        let list = rawValues.joined(separator: ", ")
        let value = try scalarText(node, codingPath, expected: "one of \(list)")
        guard !rawValues.contains(value.text) else { return }
        let hint = KeySuggestion.closest(to: value.text, among: rawValues).map { "did you mean '\($0)'?" }
        throw ConfigError(
            kind: .invalidValue, file: document.file, at: node.mark,
            message: "expected one of \(list) \(ConfigPath(codingPath: codingPath).forPhrase), got "
                + describe(value) + (hint.map { "; \($0)" } ?? ""))
    }

    // MARK: Errors

    /// `expected <what> for <path>, got <what it is>[; <hint>]`, at the node.
    func mismatch(
        expected: String, _ node: YAMLNode, _ codingPath: [any CodingKey], value: ScalarText? = nil,
        hint: String? = nil
    ) -> ConfigError {
        let got: String
        switch node.content {
        case .mapping: got = "a mapping"
        case .sequence: got = "a list"
        case .scalar(let scalar):
            got = describe(value ?? ScalarText(text: scalar.text, scalar: scalar, wasSubstituted: false))
        }
        var message = "expected \(expected) \(ConfigPath(codingPath: codingPath).forPhrase), got \(got)"
        if let hint { message += "; \(hint)" }
        return ConfigError(kind: .typeMismatch, file: document.file, at: node.mark, message: message)
    }

    /// How a scalar is shown in messages: as written in the file when substitution changed it, so
    /// values from the environment never appear.
    func describe(_ value: ScalarText) -> String {
        if value.wasSubstituted {
            return Self.quoted(value.scalar.text) + " (after substituting environment variables)"
        }
        if value.isNull { return value.text.isEmpty ? "an empty value" : "null" }
        if !value.scalar.isPlain { return "the quoted string " + Self.quoted(value.text) }
        return Self.quoted(value.text)
    }

    /// `missing key 'x' in <path>`, at the mapping.
    func missingKey(_ key: String, _ node: YAMLNode, _ codingPath: [any CodingKey]) -> ConfigError {
        ConfigError(
            kind: .missingKey, file: document.file, at: node.mark,
            message: "missing key '\(key)' \(ConfigPath(codingPath: codingPath).inPhrase)")
    }

    private func environmentError(
        _ failure: EnvironmentInterpolation.Failure, _ node: YAMLNode, _ codingPath: [any CodingKey]
    ) -> ConfigError {
        let path = ConfigPath(codingPath: codingPath)
        let message: String
        switch failure {
        case .unset(let name, _):
            message =
                "environment variable \(name) is not set (used \(path.forPhrase)); set it (environment, --var, "
                + ".env beside the pipeline file), or give a default "
                + "with ${\(name):-default}"
        case .empty(let name, _):
            message =
                "environment variable \(name) is empty (used \(path.forPhrase)); set it, or give a default "
                + "with ${\(name):-default}"
        case .malformed(let reference, _):
            message =
                "malformed reference '\(reference)' \(path.inPhrase); write ${NAME} or ${NAME:-default}, and $$ for a literal $"
        case .unterminated:
            message = "unterminated '${' \(path.inPhrase); close it with '}', or write $$ for a literal $"
        }
        return ConfigError(
            kind: .environment, file: document.file,
            at: document.position(ofUTF8Offset: failure.offset, in: node), message: message)
    }

    /// The first unknown key as an error with a suggestion, if there is one.
    func unknownKeyError(certainOnly: Bool) -> ConfigError? {
        guard let unknown = tracker.firstUnknownKey(certainOnly: certainOnly) else { return nil }
        let key = unknown.entry.key
        let present = Set(unknown.usage.entries.map(\.key))
        var message = "unknown key '\(key)' \(unknown.usage.path.inPhrase)"
        let free = unknown.usage.candidates.filter { !present.contains($0) }
        if let suggestion = KeySuggestion.closest(to: key, among: free) {
            message += "; did you mean '\(suggestion)'?"
        } else if !unknown.usage.candidates.isEmpty {
            message += "; expected one of \(unknown.usage.candidates.joined(separator: ", "))"
        }
        return ConfigError(kind: .unknownKey, file: document.file, at: unknown.entry.keyMark, message: message)
    }

    /// Any error thrown while decoding, as a positioned ``ConfigError``.
    func configError(from error: any Error) -> ConfigError {
        switch error {
        case let error as ConfigError:
            return error
        case let issue as ConfigIssue:
            let mark = document.mark(
                at: issue.codingPath, utf8Offset: issue.utf8Offset, interpolation: interpolation,
                pointsAtKey: issue.pointsAtKey)
            return ConfigError(kind: issue.kind, file: document.file, at: mark, message: issue.message)
        case let error as DecodingError:
            switch error {
            case .keyNotFound(let key, let context):
                return missingKey(key.stringValue, document.locate(context.codingPath).node, context.codingPath)
            case .dataCorrupted(let context), .typeMismatch(_, let context), .valueNotFound(_, let context):
                let path = ConfigPath(codingPath: context.codingPath)
                let prefix = path.isRoot ? "" : "\(path): "
                return ConfigError(
                    kind: .invalidValue, file: document.file, at: document.locate(context.codingPath).node.mark,
                    message: prefix + context.debugDescription)
            @unknown default:
                return ConfigError(
                    kind: .invalidValue, file: document.file, at: nil, message: NowETLError.text(of: error))
            }
        default:
            return ConfigError(kind: .invalidValue, file: document.file, at: nil, message: NowETLError.text(of: error))
        }
    }

    // MARK: Helpers

    /// `"text"` with quotes, backslashes and control characters escaped, shortened past 60 characters.
    static func quoted(_ text: String) -> String {
        PrintableText.doubleQuoted(text, limit: 60)
    }

    /// `[-+]?[0-9]+`.
    static func isDecimalInteger(_ text: String) -> Bool {
        var digits = Substring(text)
        if let first = digits.first, first == "-" || first == "+" { digits = digits.dropFirst() }
        return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// `[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?`.
    static func isDecimalNumber(_ text: String) -> Bool {
        var rest = Substring(text)
        func digits() -> Int {
            let count = rest.prefix { $0.isASCII && $0.isNumber }.count
            rest = rest.dropFirst(count)
            return count
        }
        if let first = rest.first, first == "-" || first == "+" { rest = rest.dropFirst() }
        var mantissaDigits = digits()
        if rest.first == "." {
            rest = rest.dropFirst()
            mantissaDigits += digits()
        }
        guard mantissaDigits > 0 else { return false }
        if let first = rest.first, first == "e" || first == "E" {
            rest = rest.dropFirst()
            if let sign = rest.first, sign == "-" || sign == "+" { rest = rest.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return rest.isEmpty
    }

    /// The raw values of a `CaseIterable` enumeration whose raw values are strings.
    static func stringRawValues(of type: any CaseIterable.Type) -> [String]? {
        func values<C: CaseIterable>(_ type: C.Type) -> [String]? {
            var result: [String] = []
            for value in type.allCases {
                guard let raw = (value as? any RawRepresentable)?.rawValue as? String else { return nil }
                result.append(raw)
            }
            return result
        }
        return values(type)
    }

    /// The names of a `CaseIterable` coding key type, in declaration order.
    static func keyNames<Key: CodingKey>(of type: Key.Type) -> [String] {
        guard let iterable = type as? any CaseIterable.Type else { return [] }
        func names<C: CaseIterable>(_ type: C.Type) -> [String] {
            type.allCases.compactMap { ($0 as? any CodingKey)?.stringValue }
        }
        return names(iterable)
    }
}

import Foundation

/// A strict `Decoder` from a ``YAMLDocument`` into `Decodable` types, with `${VAR}` substitution.
///
/// Strict means:
/// * **Unknown keys are errors.** Every key of a mapping decoded through a keyed container must
///   have been asked for by the type's `init(from:)` (`decode`, `decodeIfPresent`, `contains` and
///   nested containers count). The error points at the key and suggests the closest known one:
///   `unknown key 'filtr' in tables[0]; did you mean 'filter'?`. When decoding fails for another
///   reason, keys the `CodingKey` type cannot represent are reported first, since a misspelt key
///   is the usual cause of a "missing key" or of a default that fails validation.
/// * **Types are exact.** `Int` and the other integer types accept plain decimal integers; `Double`
///   and `Float` plain decimal numbers; `Bool` only plain `true` and `false` (never YAML 1.1's `yes`,
///   `no`, `on`, `off`); a quoted scalar (`"1000"`) is a string and never a number or boolean.
///   `String` accepts any scalar except null (`~`, `null`, empty). Enumerations that are
///   `CaseIterable` with `String` raw values get "expected one of …" errors with a suggestion.
/// * **Missing keys** point at the mapping that lacks them: `missing key 'table' in tables[1]`.
///
/// Scalar values (never keys) go through `${VAR}` substitution before they are interpreted, so
/// `page_size: ${PAGE_SIZE:-1000}` is an integer. Errors name variables, not their values, and
/// show a substituted scalar as it is written in the file.
///
/// `DecodingError.dataCorrupted` thrown by a type's `init(from:)` becomes an error at the node of
/// its coding path, with its `debugDescription` as the message.
struct YAMLDecoder: Sendable {
    /// The variables `${VAR}` references are resolved from.
    var environment: [String: String]
    /// Values handed to `init(from:)` through `Decoder.userInfo`.
    var userInfo: [CodingUserInfoKey: any Sendable]

    /// Creates a decoder.
    ///
    /// - Parameters:
    ///   - environment: Variables for `${VAR}`; the process environment by default.
    ///   - userInfo: Values for `Decoder.userInfo`.
    init(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        userInfo: [CodingUserInfoKey: any Sendable] = [:]
    ) {
        self.environment = environment
        self.userInfo = userInfo
    }

    /// Decodes a value from the document's root.
    ///
    /// - Throws: ``ConfigError`` with the document's file and the position of the first problem.
    func decode<T: Decodable>(_ type: T.Type, from document: YAMLDocument) throws(ConfigError) -> T {
        try decode(type, from: document, context: makeContext(document))
    }

    /// Decodes as ``decode(_:from:)`` does, and also returns every mapping the decode opened, by path
    /// (`tables[0].columns[1]`), with the key names its `CodingKey` types know: what the test comparing
    /// ``PipelineSchema`` with the decoding types reads.
    func decodeListingKeys<T: Decodable>(_ type: T.Type, from document: YAMLDocument) throws(ConfigError)
        -> (value: T, keys: [String: [String]])
    {
        let context = makeContext(document)
        let value = try decode(type, from: document, context: context)
        return (value, context.tracker.knownKeys)
    }

    private func makeContext(_ document: YAMLDocument) -> YAMLDecodingContext {
        YAMLDecodingContext(
            document: document, interpolation: EnvironmentInterpolation(environment: environment), userInfo: userInfo)
    }

    private func decode<T: Decodable>(_ type: T.Type, from document: YAMLDocument, context: YAMLDecodingContext)
        throws(ConfigError) -> T
    {
        let value: T
        do {
            value = try context.decode(T.self, from: document.root, codingPath: [])
        } catch {
            if let unknown = context.unknownKeyError(certainOnly: true) { throw unknown }
            throw context.configError(from: error)
        }
        if let unknown = context.unknownKeyError(certainOnly: false) { throw unknown }
        return value
    }
}

import Foundation

/// Loads a pipeline file: reads it, parses the YAML, substitutes `${VAR}`s, reads `*_file`
/// secrets, decodes strictly and checks everything that can be checked without the instance.
///
/// `nowetl validate` and `nowetl run` both start here, so a file that validates is a file that
/// runs. Every failure is a ``ConfigError`` with the file, line and column (exit code 78).
public enum PipelineLoader {
    /// Loads and checks the pipeline file at `path`.
    ///
    /// - Parameters:
    ///   - path: The file; also how it is named in errors.
    ///   - environment: The variables for `${VAR}`; the process environment by default.
    ///   - variables: Values for `${VAR}` that win over `environment` (`--var NAME=VALUE`).
    /// - Throws: ``ConfigError``.
    public static func load(
        path: String, environment: [String: String] = ProcessInfo.processInfo.environment,
        variables: [String: String] = [:]
    ) throws(ConfigError) -> PipelineConfiguration {
        try loadLocated(path: path, environment: environment, variables: variables).configuration
    }

    /// Loads and checks the pipeline file at `path` as ``load(path:environment:variables:)`` does, keeping
    /// the file so that problems found later (against the instance's dictionary) point into it, and the
    /// warnings found on the way (``LocatedPipeline/warnings``).
    ///
    /// `${VAR}` values come from `variables`, else `environment`, else the `.env` file in the pipeline
    /// file's directory when there is one (``DotEnvFile``).
    ///
    /// - Throws: ``ConfigError``.
    public static func loadLocated(
        path: String, environment: [String: String] = ProcessInfo.processInfo.environment,
        variables: [String: String] = [:]
    ) throws(ConfigError) -> LocatedPipeline {
        let document = try YAMLReader.read(contentsOf: path)
        let dotEnv = try DotEnvFile.read(besidePipeline: path)
        let values = (dotEnv?.values ?? [:])
            .merging(environment) { _, environment in environment }
            .merging(variables) { _, given in given }
        var located = try load(document: document, environment: values)
        located.warnings = (dotEnv?.warnings ?? []) + located.warnings
        return located
    }

    /// Loads pipeline text as ``load(text:file:environment:)`` does, keeping the text for positions.
    ///
    /// - Throws: ``ConfigError``.
    public static func loadLocated(
        text: String, file: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ConfigError) -> LocatedPipeline {
        try load(document: YAMLReader.parse(Array(text.utf8), file: file), environment: environment)
    }

    /// Loads and checks pipeline text (a file already in memory, standard input, tests).
    ///
    /// - Parameters:
    ///   - text: The YAML text.
    ///   - file: The name used in errors.
    ///   - environment: The variables for `${VAR}`; the process environment by default.
    /// - Throws: ``ConfigError``.
    public static func load(
        text: String, file: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ConfigError) -> PipelineConfiguration {
        try load(document: YAMLReader.parse(Array(text.utf8), file: file), environment: environment).configuration
    }

    /// Loads pipeline text and returns every mapping its decode opened, by path, with the keys the
    /// decoding types know there (``YAMLDecoder/decodeListingKeys(_:from:)``): how a test holds
    /// ``PipelineSchema`` to the decoding types.
    ///
    /// - Throws: ``ConfigError``.
    static func knownKeys(text: String, file: String, environment: [String: String]) throws(ConfigError)
        -> [String: [String]]
    {
        let document = try YAMLReader.parse(Array(text.utf8), file: file)
        let context = PipelineLoadContext(file: document.file)
        return try YAMLDecoder(environment: environment, userInfo: [PipelineLoadContext.key: context])
            .decodeListingKeys(PipelineConfiguration.self, from: document).keys
    }

    /// Checks `version:` before anything else, so a file for another version gets that message
    /// rather than a list of keys this version does not know.
    private static func load(document: YAMLDocument, environment: [String: String]) throws(ConfigError)
        -> LocatedPipeline
    {
        let start = "a pipeline file is a mapping that starts with version: \(PipelineConfiguration.supportedVersion)"
        if document.isEmpty {
            throw ConfigError(
                kind: .unsupportedVersion, file: document.file, at: nil, message: "the file is empty; \(start)")
        }
        guard document.root.entries != nil else {
            throw ConfigError(
                kind: .typeMismatch, file: document.file, at: document.root.mark,
                message: "expected a mapping at the top level; \(start)")
        }
        guard let version = document.root["version"] else {
            throw ConfigError(
                kind: .unsupportedVersion, file: document.file, at: document.root.mark,
                message: "missing key 'version' at the top level; \(start)")
        }
        if let scalar = version.scalar, scalar.isPlain, let number = Int(scalar.text),
            number != PipelineConfiguration.supportedVersion
        {
            throw ConfigError(
                kind: .unsupportedVersion, file: document.file, at: version.mark,
                message: "unsupported version \(number); this nowetl reads version "
                    + "\(PipelineConfiguration.supportedVersion) pipeline files")
        }
        let context = PipelineLoadContext(file: document.file)
        let configuration = try YAMLDecoder(environment: environment, userInfo: [PipelineLoadContext.key: context])
            .decode(PipelineConfiguration.self, from: document)
        let interpolation = EnvironmentInterpolation(environment: environment)
        return LocatedPipeline(
            configuration: configuration, document: document, interpolation: interpolation,
            warnings: context.warnings(in: document, interpolation: interpolation))
    }
}

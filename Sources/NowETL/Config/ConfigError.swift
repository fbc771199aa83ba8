/// A problem with a pipeline file, with the file, line and column it is about.
///
/// ``description`` reads like a compiler diagnostic, so editors and terminals can jump to it:
/// `pipelines/x.yaml:12:7: error: unknown key 'filtr' in tables[0]; did you mean 'filter'?`.
/// Messages name keys, paths, environment variable names and secret file paths, never the value of
/// a secret or of an environment variable. A configuration error is terminal: retrying cannot help,
/// and the command exits with ``exitCode`` (78, `EX_CONFIG`; ARCHITECTURE.md, *Errors*).
public struct ConfigError: Error, Sendable, Hashable, CustomStringConvertible, ExitCodeProviding {
    /// What kind of problem this is (for callers that react differently; messages say the rest).
    public enum Kind: Sendable, Hashable {
        /// The file could not be read at all.
        case unreadableFile
        /// libyaml rejected the text (indentation, tabs, unclosed brackets, invalid UTF-8), or the
        /// text uses YAML features pipeline files do not allow (several documents, tags, merge keys,
        /// duplicate keys, unknown aliases).
        case syntax
        /// A mapping has a key the configuration does not know.
        case unknownKey
        /// A required key is missing.
        case missingKey
        /// A value has the wrong shape or type (a string where an integer belongs, `yes` for a boolean).
        case typeMismatch
        /// A value has the right type but is not allowed (out of range, bad query, unknown enum case).
        case invalidValue
        /// `version:` is missing or not one this program reads.
        case unsupportedVersion
        /// A `${VAR}` reference names a variable that is not set, or is malformed.
        case environment
        /// A `*_file` secret could not be read.
        case secretFile
    }

    /// What kind of problem this is.
    public var kind: Kind
    /// The file, as given to the loader (`pipelines/x.yaml`).
    public var file: String
    /// The 1-based line, or `nil` when the problem concerns the whole file.
    public var line: Int?
    /// The 1-based column (in Unicode scalars), or `nil` when the problem concerns the whole file.
    public var column: Int?
    /// What is wrong and, where possible, how to fix it; no position, no `error:` prefix.
    public var message: String

    /// Creates an error.
    public init(kind: Kind, file: String, line: Int?, column: Int?, message: String) {
        self.kind = kind
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    /// Creates an error at a mark.
    init(kind: Kind, file: String, at mark: YAMLNode.Mark?, message: String) {
        self.init(kind: kind, file: file, line: mark?.line, column: mark?.column, message: message)
    }

    /// The position as a mark, when there is one.
    var mark: YAMLNode.Mark? {
        guard let line, let column else { return nil }
        return YAMLNode.Mark(line: line, column: column)
    }

    /// The process exit code for configuration errors: 78 (`EX_CONFIG`).
    public var exitCode: Int32 { 78 }

    /// `file:line:column: error: message`, or `file: error: message` without a position.
    public var description: String {
        if let line, let column {
            return "\(file):\(line):\(column): error: \(message)"
        }
        return "\(file): error: \(message)"
    }
}

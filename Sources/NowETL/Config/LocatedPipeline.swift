/// A loaded pipeline together with the file it came from, so problems found after loading — names the
/// instance's dictionary does not know (``DictionaryNameCheck``) — still get `file:line:column`.
public struct LocatedPipeline: Sendable {
    /// The configuration, as ``PipelineLoader/load(path:environment:variables:)`` returns it.
    public internal(set) var configuration: PipelineConfiguration
    let document: YAMLDocument
    let interpolation: EnvironmentInterpolation
    /// What loading found risky but usable (a secret file others can read), in the order found; the
    /// commands print these before they start.
    public internal(set) var warnings: [ConfigWarning]

    /// The problem as a configuration error (exit 78) at the name it is about.
    ///
    /// The column is the name's own inside a plain, single-quoted or double-quoted scalar written on one
    /// line — a filter's misspelt field is pointed at within the filter text, through `${VAR}`
    /// substitution too; in a block (`|`, `>`) or multi-line scalar it is the scalar's start
    /// (``YAMLDocument/position(ofUTF8Offset:in:)``).
    public func configError(for problem: DictionaryNameProblem) -> ConfigError {
        let mark = document.mark(at: problem.codingPath, utf8Offset: problem.utf8Offset, interpolation: interpolation)
        return ConfigError(kind: .invalidValue, file: document.file, at: mark, message: problem.message)
    }
}

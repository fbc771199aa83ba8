/// Why an unload XML document was not imported; nothing of it was applied.
///
/// The description is `FILE:LINE: message` (`FILE: message` when no line applies), the form
/// compilers and libxml2's own tools use, so an editor or a terminal jumps to the place.
public struct UnloadImportError: Error, CustomStringConvertible, Equatable, Sendable {
    /// What the document is called in messages: the path given, or `request body`.
    public var document: String
    /// The line of the problem (1-based), when known.
    public var line: Int?
    /// What is wrong, e.g. `unknown table 'incidnet'` or libxml2's `Opening and ending tag mismatch: …`.
    public var message: String

    /// Creates an error.
    public init(document: String, line: Int?, message: String) {
        self.document = document
        self.line = line
        self.message = message
    }

    /// `FILE:LINE: message`.
    public var description: String {
        if let line { return "\(document):\(line): \(message)" }
        return "\(document): \(message)"
    }
}

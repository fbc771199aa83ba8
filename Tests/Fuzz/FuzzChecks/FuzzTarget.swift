/// The fuzz targets of `make fuzz` and the checks they run on one input.
///
/// Each check takes arbitrary bytes, feeds them to one parser or writer and returns a
/// ``FuzzFailure`` when a property that must hold for every input does not (two decoders disagree, a
/// round trip changes the data); a trap or a memory error is a failure the sanitizers report. The
/// `nowetl-fuzz` executable runs a check under libFuzzer, and `FuzzTests` replays the seed and
/// regression corpora (`Tests/Fuzz/Corpus/<target>`, `Tests/Fuzz/Regressions/<target>`) through the
/// same checks in `make test`, without sanitizers.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// ``FastPageDecoder`` against ``FoundationPageDecoder``: the same verdict and the same records.
    case pageDecoder = "page-decoder"
    /// Encoded-query text: parse, print, parse again gives the same query.
    case encodedQuery = "encoded-query"
    /// Pipeline YAML text through ``PipelineLoader``: a configuration or a ``ConfigError`` that points
    /// into the text.
    case pipelineYAML = "pipeline-yaml"
    /// `.env` text: values, written back in double quotes, read the same.
    case dotEnv = "dotenv"
    /// nowsim's unload XML reader: records, written back as an unload document, read the same.
    case unloadXML = "unload-xml"
    /// Rows derived from the bytes through the CSV writer, read back equal.
    case csvWriter = "csv-writer"
    /// Rows derived from the bytes through the JSON writer (lines and array), read back equal.
    case jsonWriter = "json-writer"
    /// Rows derived from the bytes through the XML writer (records and unload): the same bytes as
    /// libxml2's escaping, unload read back equal.
    case xmlWriter = "xml-writer"
    /// An attachment's file name from the network, made safe for the file system.
    case attachmentName = "attachment-name"
    /// nowsim's `multipart/form-data` parser (Attachment API uploads).
    case multipartForm = "multipart-form"

    /// Runs the target's check on `bytes`: `nil` when every property holds.
    public func check(_ bytes: [UInt8]) -> FuzzFailure? {
        switch self {
        case .pageDecoder: PageDecoderCheck.check(bytes)
        case .encodedQuery: EncodedQueryCheck.check(bytes)
        case .pipelineYAML: PipelineYAMLCheck.check(bytes)
        case .dotEnv: DotEnvCheck.check(bytes)
        case .unloadXML: UnloadXMLCheck.check(bytes)
        case .csvWriter: CSVWriterCheck.check(bytes)
        case .jsonWriter: JSONWriterCheck.check(bytes)
        case .xmlWriter: XMLWriterCheck.check(bytes)
        case .attachmentName: AttachmentNameCheck.check(bytes)
        case .multipartForm: MultipartFormCheck.check(bytes)
        }
    }
}

/// A property a fuzz check found broken, in words a reader can act on.
public struct FuzzFailure: Error, Sendable, CustomStringConvertible {
    /// What does not hold, with the values involved.
    public var message: String

    /// Creates a failure.
    public init(_ message: String) {
        self.message = message
    }

    /// The message.
    public var description: String { message }
}

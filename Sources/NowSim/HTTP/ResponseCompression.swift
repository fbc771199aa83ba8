import Foundation

/// The content codings a request's `Accept-Encoding` allows (RFC 9110 §12.5.3), as far as nowsim
/// needs them: whether a gzip answer may be sent.
struct AcceptEncoding: Equatable {
    /// Whether the client takes `Content-Encoding: gzip`.
    var allowsGzip: Bool

    /// Reads the header's value; `nil` (no header) allows no coding, as an instance answers a client
    /// that does not ask.
    ///
    /// Codings are compared ignoring case; `x-gzip` counts as `gzip` (RFC 9110 §8.4.1.3). A coding is
    /// allowed when it is listed with a weight above 0, or when it is not listed and `*` is, with a
    /// weight above 0. `gzip;q=0` refuses gzip even if `*` is listed; a malformed weight counts as 1,
    /// the default, rather than refusing a request over it.
    init(header value: String?) {
        guard let value else {
            allowsGzip = false
            return
        }
        var gzipWeight: Double?
        var anyWeight: Double?
        for member in value.split(separator: ",") {
            let parts = member.split(separator: ";")
            guard let name = parts.first?.trimmingCharacters(in: .whitespaces).lowercased(), !name.isEmpty else {
                continue
            }
            let weight = Self.weight(parts.dropFirst())
            switch name {
            case "gzip", "x-gzip": gzipWeight = max(gzipWeight ?? 0, weight)
            case "*": anyWeight = weight
            default: continue
            }
        }
        allowsGzip = (gzipWeight ?? anyWeight ?? 0) > 0
    }

    /// The `q` parameter among `parameters` (1 when absent or unreadable).
    private static func weight(_ parameters: ArraySlice<Substring>) -> Double {
        for parameter in parameters {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "q" else { continue }
            return Double(pair[1].trimmingCharacters(in: .whitespaces)).map { min(max($0, 0), 1) } ?? 1
        }
        return 1
    }
}

/// Compresses answers for clients that ask, as an instance does: `Content-Encoding: gzip` and
/// `Vary: Accept-Encoding` on every JSON or XML body when `Accept-Encoding` allows gzip.
///
/// What is left alone, and why:
/// - Bodies another step already encoded (the `gzip-bomb` and `content-encoding` faults set
///   `Content-Encoding`): encoding them again would hide the fault from the client.
/// - Padded bodies (the `oversize` fault, many megabytes sent without being held) and streamed
///   bodies (an attachment's file): compressing them would mean holding them, and the faults they
///   serve test what a client does with a large identity body.
/// - Bodies of other types (an attachment's bytes are already compressed more often than not),
///   empty bodies, 204 and 304.
///
/// Every JSON or XML body is compressed whatever its size: the reference records no minimum for
/// instances, and compressing the smallest answers too means a client's decoding is exercised by
/// every request that asks.
enum ResponseCompression {
    /// `response` compressed for `request` when it asks for gzip and the body qualifies.
    static func apply(to response: inout HTTPResponse, for request: HTTPRequest) {
        guard AcceptEncoding(header: request.header("accept-encoding")).allowsGzip,
            response.status != 204, response.status != 304, !response.body.isEmpty,
            response.padding == nil, response.stream == nil, response.header("Content-Encoding") == nil,
            isCompressible(response.header("Content-Type"))
        else { return }
        guard let compressed = gzip(response.body) else { return }  // zlib failed: answer uncompressed
        response.body = compressed
        response.headers.append(("Content-Encoding", "gzip"))
        response.headers.append(("Vary", "Accept-Encoding"))
    }

    /// Whether a body of `contentType` is text an instance compresses (JSON, XML, other text).
    static func isCompressible(_ contentType: String?) -> Bool {
        guard let type = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        else { return false }
        return type.hasPrefix("text/") || type.hasSuffix("/json") || type.hasSuffix("+json")
            || type.hasSuffix("/xml") || type.hasSuffix("+xml")
    }

    /// One gzip member holding `body` (zlib's default level, mtime 0), or `nil` when zlib fails.
    static func gzip(_ body: [UInt8]) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(body.count / 4 + 64)
        let done = try? body.withUnsafeBytes { bytes in
            try AttachmentEncoding.gzipChunks(of: bytes, chunkSize: 64 << 10) { output.append(contentsOf: $0) }
        }
        return done == nil ? nil : output
    }
}

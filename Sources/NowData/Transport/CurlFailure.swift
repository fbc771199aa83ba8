import CCurl
import Foundation

/// Maps libcurl's result codes to the `URLError`s the rest of NowData classifies (transient,
/// unreachable, terminal), so the exit codes stay what they were with the earlier URLSession transport.
enum CurlFailure {
    /// The `URLError` for `code`, with libcurl's message and the URL (without credentials) as its text.
    static func urlError(_ code: CURLcode, message: String?, url: URL) -> URLError {
        let detail = withoutUserInfo(message ?? String(cString: curl_easy_strerror(code)))
        let mapped = urlErrorCode(code)
        let prefix = mapped == .timedOut ? "" : (isTLS(code) ? "TLS: " : "")
        return urlError(mapped, "\(prefix)\(detail)", url: url)
    }

    /// The `URLError` `code` with `text` as its description and the URL (without credentials) as its
    /// failing URL, which ``NetworkServiceError/description(showingURL:)`` shows after the text, or only
    /// its host.
    static func urlError(_ code: URLError.Code, _ text: String, url: URL) -> URLError {
        URLError(
            code,
            userInfo: [
                NSLocalizedDescriptionKey: text,
                NSURLErrorFailingURLStringErrorKey: URLRedaction.redact(url),
            ])
    }

    /// `text` with the user info of every URL in it (`scheme://user:password@`) replaced by `<redacted>`:
    /// libcurl's messages quote the proxy URL as given (`source.proxy`, `HTTPS_PROXY`), password included.
    static func withoutUserInfo(_ text: String) -> String {
        var result = ""
        var rest = text[...]
        while let scheme = rest.range(of: "://") {
            result += rest[..<scheme.upperBound]
            rest = rest[scheme.upperBound...]
            let authorityEnd = rest.firstIndex { "/?# \t\r\n'\"".contains($0) } ?? rest.endIndex
            if let at = rest[..<authorityEnd].lastIndex(of: "@") {
                result += "<redacted>"
                rest = rest[at...]
            }
        }
        return result + rest
    }

    /// The `URLError` code of a libcurl result.
    static func urlErrorCode(_ code: CURLcode) -> URLError.Code {
        switch code {
        case CURLE_COULDNT_CONNECT: return .cannotConnectToHost
        case CURLE_COULDNT_RESOLVE_HOST: return .cannotFindHost
        case CURLE_COULDNT_RESOLVE_PROXY: return .cannotConnectToHost
        case CURLE_OPERATION_TIMEDOUT: return .timedOut
        case CURLE_PEER_FAILED_VERIFICATION: return .serverCertificateUntrusted
        case CURLE_SSL_CONNECT_ERROR: return .secureConnectionFailed
        case CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CRL_BADFILE,
            CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_ENGINE_NOTFOUND,
            CURLE_SSL_ENGINE_SETFAILED, CURLE_SSL_ENGINE_INITFAILED, CURLE_USE_SSL_FAILED,
            CURLE_SSL_CLIENTCERT:
            return .secureConnectionFailed
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_HTTP2,
            CURLE_HTTP2_STREAM:
            return .networkConnectionLost
        case CURLE_WEIRD_SERVER_REPLY, CURLE_BAD_CONTENT_ENCODING: return .badServerResponse
        case CURLE_PROXY: return .cannotConnectToHost
        case CURLE_URL_MALFORMAT: return .badURL
        case CURLE_UNSUPPORTED_PROTOCOL: return .unsupportedURL
        case CURLE_ABORTED_BY_CALLBACK: return .cancelled
        default: return .unknown
        }
    }

    private static func isTLS(_ code: CURLcode) -> Bool {
        switch urlErrorCode(code) {
        case .secureConnectionFailed, .serverCertificateUntrusted: return true
        default: return false
        }
    }
}

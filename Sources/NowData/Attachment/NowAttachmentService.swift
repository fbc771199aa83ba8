import Foundation

/// Reads attachments through the Attachment API (`/api/now/attachment`, ref §7.3): their metadata by
/// encoded query, page by page, and their bytes streamed into a ``ResponseBodyStream`` (never held
/// whole in memory).
///
/// ```swift
/// let attachments = NowAttachmentService(sharing: tableService)
/// let page = try await attachments.attachments(query: "table_name=incident^ORDERBYsys_id", limit: 100)
/// ```
public struct NowAttachmentService: Sendable {
    /// The configuration of the service whose transport this one uses.
    public let configuration: NowServiceConfiguration
    let transport: HTTPTransport

    /// An attachment service over `service`'s transport: the same connections, retries, authentication
    /// and transport events (a rate limiter watching the table service sees these requests too).
    public init(sharing service: NowTableService) {
        configuration = service.configuration
        transport = service.transport
    }

    /// One page of attachment metadata, `GET /api/now/attachment?sysparm_query=…&sysparm_limit=…`; the
    /// query is relative to `sys_attachment` (`table_name=incident^table_sys_idIN…^ORDERBYsys_id`).
    ///
    /// - Returns: the metadata in the answer's order, and the attempts the request took.
    /// - Throws: ``NowDataError``; ``NowDataError/cannotParseResponse`` for a body that is not a list of
    ///   metadata objects.
    public func attachments(query: String, limit: Int, offset: Int = 0) async throws(NowDataError) -> (
        attachments: [AttachmentMetadata], attempts: Int
    ) {
        var items = [
            URLQueryItem(name: "sysparm_query", value: query),
            URLQueryItem(name: "sysparm_limit", value: String(limit)),
        ]
        if offset > 0 { items.append(URLQueryItem(name: "sysparm_offset", value: String(offset))) }
        let url = try TableEndpoint.url(
            configuration: configuration, api: "attachment", segments: [], queryItems: items)
        let response = try await transport.send(TransportRequest(method: .get, url: url, table: "sys_attachment"))
        struct Page: Decodable { var result: [AttachmentMetadata] }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        guard let page = try? decoder.decode(Page.self, from: response.body) else { throw .cannotParseResponse }
        return (page.result, response.attempts)
    }

    /// Streams the bytes of attachment `sysID` (`GET /api/now/attachment/{sys_id}/file`) into `stream`.
    ///
    /// A retried request starts the stream again; an error answer (404 for an attachment that is gone or
    /// not readable) throws and leaves the stream's content undefined.
    ///
    /// - Returns: the answer's `Content-Type` and the attempts the request took.
    /// - Throws: ``NowDataError``; what `stream` threw, as ``NowDataError/network(_:)`` with
    ///   ``NetworkServiceError/systemError(_:)`` carrying that error.
    public func download(sysID: SysID, into stream: any ResponseBodyStream) async throws(NowDataError) -> (
        contentType: String?, attempts: Int
    ) {
        guard SysIDRule.accepts(sysID) else { throw .missingSysID }
        let url = try TableEndpoint.url(configuration: configuration, api: "attachment", segments: [sysID, "file"])
        var request = TransportRequest(method: .get, url: url, table: "sys_attachment")
        request.accept = "*/*"
        request.validatesJSONBody = false
        request.stream = stream
        let response = try await transport.send(request)
        return (response.header("content-type"), response.attempts)
    }
}

/// An attachment's metadata as the Attachment API answers it (ref §7.3), named as the Mobile SDK's
/// attachment metadata names it (`sysId`, `tableSysId`, the snake_case keys in camel case): every value
/// text, `nil` for a key the answer lacks; a value that is not text makes the page unreadable.
public struct AttachmentMetadata: Sendable, Hashable, Codable {
    public var sysId: String?
    public var fileName: String?
    public var contentType: String?
    public var tableName: String?
    public var tableSysId: String?
    /// The content's size in bytes, as text (`"20971520"`).
    public var sizeBytes: String?
    public var sizeCompressed: String?
    public var compressed: String?
    /// The SHA-256 of the content the instance records, as text.
    public var hash: String?
    public var sysCreatedOn: String?
    public var sysCreatedBy: String?
    public var sysUpdatedOn: String?
    public var sysUpdatedBy: String?
}

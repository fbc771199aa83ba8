/// Where the body of a successful answer goes as it arrives, instead of into memory: an attachment's
/// bytes written to a file while they download.
///
/// Only a 2xx answer's body is streamed; an error answer's body is kept in memory as usual (it is the
/// error's text). A retried request starts the stream again (``restart()``), so what the stream holds
/// at the end is exactly one answer's body, decoded (`Content-Encoding: gzip` already undone).
///
/// The transport calls the stream from its own thread (libcurl's loop), one call at a time and never
/// concurrently for one request; a stream is used by one request at a time. A call that throws ends the
/// transfer, and the request fails with ``NowDataError/network(_:)`` naming the stream's error text.
public protocol ResponseBodyStream: AnyObject, Sendable {
    /// Starts over: the bytes appended so far belong to an answer that is not the final one.
    func restart() throws
    /// Takes the next bytes of the body.
    func append(_ bytes: UnsafeRawBufferPointer) throws
}

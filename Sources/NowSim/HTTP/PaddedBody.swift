import CMicroHTTPD

/// A run of one repeated byte inside a response body, sent without being held in memory (the
/// `oversize` fault pads answers to many megabytes this way).
public struct BodyPadding: Sendable, Equatable {
    /// The byte repeated.
    public var byte: UInt8
    /// How many times.
    public var count: Int
    /// Where in the body the run goes: the body's bytes before `offset` come first, the rest after it.
    public var offset: Int

    /// Creates a run of `count` × `byte` at `offset` of the body.
    public init(byte: UInt8, count: Int, offset: Int) {
        self.byte = byte
        self.count = max(0, count)
        self.offset = max(0, offset)
    }
}

/// A body with its padding, produced block by block as libmicrohttpd asks for it.
///
/// Passed (retained) to `MHD_create_response_from_callback` as the reader's `cls`; libmicrohttpd
/// calls ``releasePaddedBody(_:)`` once when the response is destroyed. Immutable, so the reader may
/// run on any of libmicrohttpd's threads.
final class PaddedBody: Sendable {
    let body: [UInt8]
    let padding: BodyPadding

    init(body: [UInt8], padding: BodyPadding) {
        self.body = body
        self.padding = BodyPadding(byte: padding.byte, count: padding.count, offset: min(padding.offset, body.count))
    }

    /// The bytes on the wire.
    var totalCount: Int { body.count + padding.count }

    /// Fills `buffer` with the bytes from `position` on; returns how many (0 at the end).
    func read(from position: Int, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var written = 0
        var at = position
        let paddingEnd = padding.offset + padding.count
        while written < buffer.count, at < totalCount {
            let room = buffer.count - written
            let take: Int
            if at < padding.offset {
                take = min(room, padding.offset - at)
                copy(from: at, count: take, to: base + written)
            } else if at < paddingEnd {
                take = min(room, paddingEnd - at)
                (base + written).initializeMemory(as: UInt8.self, repeating: padding.byte, count: take)
            } else {
                let source = at - padding.count
                take = min(room, body.count - source)
                copy(from: source, count: take, to: base + written)
            }
            written += take
            at += take
        }
        return written
    }

    private func copy(from start: Int, count: Int, to target: UnsafeMutableRawPointer) {
        body.withUnsafeBytes { bytes in
            guard count > 0, let source = bytes.baseAddress else { return }
            target.copyMemory(from: source + start, byteCount: count)
        }
    }
}

/// `MHD_ContentReaderCallback` of a ``PaddedBody``: the next block of the body, or -1 at its end.
func readPaddedBody(
    cls: UnsafeMutableRawPointer?, position: UInt64, buffer: UnsafeMutablePointer<CChar>?, size: Int
) -> Int {
    guard let cls, let buffer else { return -2 }  // MHD_CONTENT_READER_END_WITH_ERROR
    let source = Unmanaged<PaddedBody>.fromOpaque(cls).takeUnretainedValue()
    guard position < UInt64(source.totalCount) else { return -1 }  // MHD_CONTENT_READER_END_OF_STREAM
    return source.read(from: Int(position), into: UnsafeMutableRawBufferPointer(start: buffer, count: size))
}

/// `MHD_ContentReaderFreeCallback` of a ``PaddedBody``: the response is gone, drop the body.
func releasePaddedBody(_ cls: UnsafeMutableRawPointer?) {
    guard let cls else { return }
    Unmanaged<PaddedBody>.fromOpaque(cls).release()
}

/// A ``ResponseBodyStream`` boxed for libmicrohttpd's `cls` (an existential cannot be passed
/// unmanaged); released by ``releaseStreamedBody(_:)`` when the response is destroyed.
final class StreamedBody: Sendable {
    let stream: any ResponseBodyStream

    init(_ stream: any ResponseBodyStream) { self.stream = stream }
}

/// `MHD_ContentReaderCallback` of a ``StreamedBody``: the next block, -1 at the end, -2 on failure.
func readStreamedBody(
    cls: UnsafeMutableRawPointer?, position: UInt64, buffer: UnsafeMutablePointer<CChar>?, size: Int
) -> Int {
    guard let cls, let buffer else { return -2 }  // MHD_CONTENT_READER_END_WITH_ERROR
    let source = Unmanaged<StreamedBody>.fromOpaque(cls).takeUnretainedValue()
    guard let count = source.stream.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: size)) else {
        return -2
    }
    return count == 0 ? -1 : count  // MHD_CONTENT_READER_END_OF_STREAM
}

/// `MHD_ContentReaderFreeCallback` of a ``StreamedBody``: the response is gone, drop the stream.
func releaseStreamedBody(_ cls: UnsafeMutableRawPointer?) {
    guard let cls else { return }
    Unmanaged<StreamedBody>.fromOpaque(cls).release()
}

import Foundation
import NowData

/// Turns the body of a Table API list response into ``Record``s: the seam for a faster JSON decoder.
public protocol PageDecoding: Sendable {
    /// The records of the array at the decoder's dot path (`result`).
    ///
    /// - Throws: ``PageDecodingError`` when the body is not JSON or has no array there.
    func records(in body: Data) throws(PageDecodingError) -> [Record]

    /// The records of a keyset page's body with the facts NowData's paging needs, read in one pass, so
    /// NowData need not scan the body first (``KeysetPageReading``).
    ///
    /// - Returns: `nil` when the body is not a complete object whose `result` array holds only records
    ///   and which has no `error` member, or when the decoder does not read pages in one pass (the
    ///   default); NowData then validates the body itself and ``records(in:)`` decodes it.
    func keysetPageRead(of body: Data) -> KeysetPageRead<[Record]>?
}

extension PageDecoding {
    /// `nil`: NowData scans the body, then ``records(in:)`` decodes it.
    public func keysetPageRead(of body: Data) -> KeysetPageRead<[Record]>? { nil }
}

/// A page body that could not be decoded.
public struct PageDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public var message: String

    /// Creates an error.
    public init(_ message: String) {
        self.message = message
    }

    /// What is wrong.
    public var description: String { message }
}

import Foundation

/// Turns the body of a Table API list response into ``Record``s: the seam for a faster JSON decoder.
public protocol PageDecoding: Sendable {
    /// The records of the array at the decoder's dot path (`result`).
    ///
    /// - Throws: ``PageDecodingError`` when the body is not JSON or has no array there.
    func records(in body: Data) throws(PageDecodingError) -> [Record]
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

import Foundation

/// A value that can show itself as JSON text: the page types of a ``Paginator``.
///
/// The SDK's paginator example is written against it (a view model generic over the page type that
/// shows each page's `jsonDescription`); the Linux form reads ``Paginator/publisher`` as an
/// `AsyncSequence` instead of a Combine publisher:
/// ```swift
/// final class PaginatorTestViewModel<T: JSONRepresentable> {
///     var result: Result<String, Error>?
///     private let paginator: Paginator<T>
///
///     init(paginator: Paginator<T>) { self.paginator = paginator }
///
///     func first() async {
///         result = nil
///         do {
///             let page = try await paginator.first()
///             result = .success(page.jsonDescription)
///         } catch {
///             result = .failure(error)
///         }
///     }
/// }
/// ```
///
/// Raw pages (`Data`) conform, and arrays of conforming values; an `Encodable` type of your own
/// conforms by declaring it and gets ``jsonDescription`` from ``Coder/default``'s encoder.
public protocol JSONRepresentable: Sendable {
    /// The value as JSON text.
    var jsonDescription: String { get }
}

extension JSONRepresentable where Self: Encodable {
    /// The value encoded by ``Coder/default`` (Table API dates); `String(describing:)` of the value if
    /// it cannot be encoded (a non-finite number, say).
    public var jsonDescription: String {
        guard let data = try? Coder.default.encoder.encode(self) else { return String(describing: self) }
        return String(decoding: data, as: UTF8.self)
    }
}

extension Data: JSONRepresentable {
    /// The bytes as text, as the instance sent them (a raw page is the response JSON); bytes that are not
    /// UTF-8 become U+FFFD.
    public var jsonDescription: String { String(decoding: self, as: UTF8.self) }
}

extension Array: JSONRepresentable where Element: JSONRepresentable {
    /// The elements' JSON texts as a JSON array: a decoded page (`Paginator<[User]>`) of models that
    /// conform (`struct User: Codable, JSONRepresentable`).
    public var jsonDescription: String { "[" + map(\.jsonDescription).joined(separator: ",") + "]" }
}

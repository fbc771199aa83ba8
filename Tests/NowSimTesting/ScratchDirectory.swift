import Foundation

/// What a scratch directory is handed to its closure as: its `URL`, or its path as a `String`.
///
/// The closure names the form it works with (`{ (directory: URL) in … }` or `{ (directory: String) in … }`),
/// so the tests keep the one form their helpers take and need no conversions.
public protocol ScratchLocation {
    /// The location of the scratch directory `url`.
    init(scratch url: URL)
}

extension URL: ScratchLocation {
    /// The directory's URL itself.
    public init(scratch url: URL) { self = url }
}

extension String: ScratchLocation {
    /// The directory's path.
    public init(scratch url: URL) { self = url.path }
}

/// Runs `body` with a fresh empty directory under the system's temporary directory and removes the
/// directory (and everything in it) afterwards, also when `body` throws: the directory's life is the
/// closure's, so no test cleans up by hand and none leaves files behind on failure.
///
/// - Parameters:
///   - label: part of the directory's name, to tell the tests' leftovers apart when a run is killed
///     (the calling function's name by default; only letters and digits are kept).
///   - body: the test's work, given the directory as a `URL` or a path.
/// - Throws: when the directory cannot be created, and whatever `body` throws.
public func withScratchDirectory<Location: ScratchLocation, Value>(
    _ label: String = #function, _ body: (Location) async throws -> Value
) async throws -> Value {
    let url = try makeScratchDirectory(label)
    defer { removeScratchDirectory(url) }
    return try await body(Location(scratch: url))
}

/// Runs `body` with a fresh empty directory and removes it afterwards: the synchronous form of
/// ``withScratchDirectory(_:_:)-async``, for tests that do not await.
public func withScratchDirectory<Location: ScratchLocation, Value>(
    _ label: String = #function, _ body: (Location) throws -> Value
) throws -> Value {
    let url = try makeScratchDirectory(label)
    defer { removeScratchDirectory(url) }
    return try body(Location(scratch: url))
}

/// Creates `<tmp>/nowtest-<label>-<8 hex>`.
private func makeScratchDirectory(_ label: String) throws -> URL {
    let safe = String(label.filter { $0.isASCII && ($0.isLetter || $0.isNumber) }.prefix(60))
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
        "nowtest-\(safe)-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Removes a scratch directory; what cannot be removed (a folder a test made read-only) is left, as a
/// failed clean-up must not fail the test.
private func removeScratchDirectory(_ url: URL) {
    try? FileManager.default.removeItem(at: url)
}

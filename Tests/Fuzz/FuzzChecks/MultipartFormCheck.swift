@testable import NowSim

/// nowsim's `multipart/form-data` parser (``MultipartForm``, the Attachment API's upload) on one body
/// with the boundary `fuzzBoundary`: it refuses the body or finds parts whose content ranges lie in
/// the body, in order, without overlapping, each ending where the next delimiter starts.
enum MultipartFormCheck {
    static let contentType = "multipart/form-data; boundary=fuzzBoundary"

    static func check(_ bytes: [UInt8]) -> FuzzFailure? {
        guard let form = MultipartForm(body: bytes, contentType: contentType) else { return nil }
        var end = 0
        let delimiter = Array("\r\n--fuzzBoundary".utf8)
        for (index, part) in form.parts.enumerated() {
            guard part.range.lowerBound >= end, part.range.upperBound <= bytes.count else {
                return FuzzFailure("part \(index) lies at \(part.range), after \(end) in \(bytes.count) bytes")
            }
            guard
                Array(bytes[part.range.upperBound..<min(bytes.count, part.range.upperBound + delimiter.count)])
                    == delimiter
            else {
                return FuzzFailure("part \(index) at \(part.range) does not end at a delimiter")
            }
            end = part.range.upperBound
        }
        return nil
    }
}

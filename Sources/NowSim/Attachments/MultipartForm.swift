import Foundation

/// A `multipart/form-data` body (RFC 7578) as `POST /api/now/attachment/upload` receives it: the
/// metadata parts (`table_name`, `table_sys_id`) first, the file in the last part ([DOC]
/// c_AttachmentAPI: "ensure that the file content is contained in the final part of the message
/// only").
///
/// The parts are located in the request body without copying it; a file part's bytes are a range
/// of that body.
struct MultipartForm {
    /// One part: its field name, the file name and type it declares, and where its content lies.
    struct Part {
        /// `name` of `Content-Disposition: form-data`.
        var name: String
        /// `filename` of `Content-Disposition`, for a file part.
        var fileName: String?
        /// The part's `Content-Type`, if given.
        var contentType: String?
        /// The content's range in the body.
        var range: Range<Int>
    }

    /// The parts in body order.
    var parts: [Part]

    /// Parses `body` for the boundary named in `contentType`; `nil` when the type is not
    /// `multipart/form-data` with a boundary or the body does not follow it.
    init?(body: [UInt8], contentType: String?) {
        guard let contentType,
            contentType.lowercased().hasPrefix("multipart/form-data"),
            let boundary = Self.parameter("boundary", in: contentType), !boundary.isEmpty, boundary.utf8.count <= 200
        else { return nil }
        let delimiter = Array(("--" + boundary).utf8)
        var parts: [Part] = []
        // The first delimiter may open the body or follow a preamble.
        guard var position = Self.find(delimiter, in: body, from: 0) else { return nil }
        position += delimiter.count
        while true {
            // After a delimiter: "--" closes the body, CRLF starts a part.
            if body.count >= position + 2, body[position] == UInt8(ascii: "-"), body[position + 1] == UInt8(ascii: "-")
            {
                break
            }
            guard let headerStart = Self.skipLineEnd(body, position) else { return nil }
            guard let headerEnd = Self.find(Array("\r\n\r\n".utf8), in: body, from: headerStart) else { return nil }
            let headers = String(decoding: body[headerStart..<headerEnd], as: UTF8.self)
            let contentStart = headerEnd + 4
            guard let next = Self.find(Array("\r\n".utf8) + delimiter, in: body, from: contentStart) else { return nil }
            guard let part = Self.part(headers: headers, range: contentStart..<next) else { return nil }
            parts.append(part)
            position = next + 2 + delimiter.count
        }
        self.parts = parts
    }

    /// The part named `name` (the last one, as a form with repeated names keeps the last value).
    func text(_ name: String, in body: [UInt8]) -> String? {
        guard let part = parts.last(where: { $0.name == name && $0.fileName == nil }) else { return nil }
        return String(decoding: body[part.range], as: UTF8.self)
    }

    private static func part(headers: String, range: Range<Int>) -> Part? {
        var name: String?
        var fileName: String?
        var contentType: String?
        for line in headers.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let field = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if field == "content-disposition" {
                name = parameter("name", in: value)
                fileName = parameter("filename", in: value)
            } else if field == "content-type" {
                contentType = value
            }
        }
        guard let name else { return nil }
        return Part(name: name, fileName: fileName, contentType: contentType, range: range)
    }

    /// The value of `name=value` or `name="value"` in a header value's `;`-separated parameters.
    static func parameter(_ name: String, in header: String) -> String? {
        var rest = Substring(header)
        while let semicolon = rest.firstIndex(of: ";") {
            rest = rest[rest.index(after: semicolon)...]
            let trimmed = rest.drop { $0 == " " || $0 == "\t" }
            guard let equals = trimmed.firstIndex(of: "="),
                trimmed[..<equals].trimmingCharacters(in: .whitespaces).lowercased() == name
            else { continue }
            let value = trimmed[trimmed.index(after: equals)...]
            if value.first == "\"" {
                // A quoted string: backslash escapes the next character.
                var result = ""
                var escaped = false
                for character in value.dropFirst() {
                    if escaped {
                        result.append(character)
                        escaped = false
                    } else if character == "\\" {
                        escaped = true
                    } else if character == "\"" {
                        return result
                    } else {
                        result.append(character)
                    }
                }
                return nil
            }
            return String(value.prefix { $0 != ";" }).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// The index after the line end at `position` (CRLF, or a bare LF), `nil` when none is there.
    private static func skipLineEnd(_ body: [UInt8], _ position: Int) -> Int? {
        if body.count >= position + 2, body[position] == 0x0D, body[position + 1] == 0x0A { return position + 2 }
        if body.count >= position + 1, body[position] == 0x0A { return position + 1 }
        return nil
    }

    /// The first index of `needle` in `haystack` at or after `start`.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, needle.count <= haystack.count else { return nil }
        var index = start
        let last = haystack.count - needle.count
        while index <= last {
            guard let hit = haystack[index...last].firstIndex(of: first) else { return nil }
            if haystack[hit..<hit + needle.count].elementsEqual(needle) { return hit }
            index = hit + 1
        }
        return nil
    }
}

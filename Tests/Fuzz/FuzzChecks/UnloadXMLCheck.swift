@testable import NowSim

/// nowsim's unload XML reader on one document: it reads records or stops at an error with a line in
/// the document; the records it read, written back as an unload document, read the same.
enum UnloadXMLCheck {
    static let document = "fuzz.xml"

    static func check(_ bytes: [UInt8]) -> FuzzFailure? {
        let records: [UnloadRecord]
        switch read(bytes) {
        case .failure(let error):
            guard error.document == document else { return FuzzFailure("the error names another document: \(error)") }
            if let line = error.line {
                let lines = bytes.reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
                // libxml2 counts a lone CR as a line end as well.
                let crs = bytes.reduce(0) { $1 == 0x0D ? $0 + 1 : $0 }
                guard line >= 1, line <= lines + crs else {
                    return FuzzFailure("error line \(line) outside the \(lines) lines: \(error)")
                }
            }
            return nil
        case .success(let read):
            records = read
        }
        // A prefixed name needs the namespace declaration the rewrite would drop.
        guard !records.contains(where: { $0.table.contains(":") || $0.fields.contains { $0.name.contains(":") } })
        else { return nil }
        let rewritten = write(records)
        switch read(Array(rewritten.utf8)) {
        case .failure(let error):
            return FuzzFailure("the records written back do not read: \(error)\n\(rewritten.debugDescription)")
        case .success(let reread):
            let same =
                reread.count == records.count
                && zip(reread, records).allSatisfy { lhs, rhs in
                    lhs.table == rhs.table && lhs.action == rhs.action
                        && lhs.fields.map(\.name) == rhs.fields.map(\.name)
                        && lhs.fields.map(\.value) == rhs.fields.map(\.value)
                }
            guard same else {
                return FuzzFailure(
                    "written back, the records read differently: \(records) / \(reread)\n\(rewritten.debugDescription)")
            }
        }
        return nil
    }

    /// Every record of `bytes`, or the first error.
    static func read(_ bytes: [UInt8]) -> Result<[UnloadRecord], UnloadImportError> {
        Result { () throws(UnloadImportError) -> [UnloadRecord] in
            let reader = try UnloadXMLReader(bytes: bytes, document: document)
            var records: [UnloadRecord] = []
            while let record = try reader.next() { records.append(record) }
            return records
        }
    }

    /// An unload document holding `records`: values escaped (`&amp;`, `&lt;`, `&gt;`, CR as `&#13;` so
    /// that line-end normalisation keeps it), empty values as empty elements.
    static func write(_ records: [UnloadRecord]) -> String {
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<unload>\n"
        for record in records {
            let action = record.action == .delete ? "DELETE" : "INSERT_OR_UPDATE"
            text += "<\(record.table) action=\"\(action)\">"
            for field in record.fields {
                if let value = field.value {
                    text += "<\(field.name)>\(escaped(value))</\(field.name)>"
                } else {
                    text += "<\(field.name)/>"
                }
            }
            text += "</\(record.table)>\n"
        }
        return text + "</unload>\n"
    }

    /// `value` as XML character data: `&`, `<` and `>` as entities, CR as a character reference (a
    /// parser would turn a literal one into LF).
    static func escaped(_ value: String) -> String {
        value.replacingScalars {
            switch $0 {
            case "&": "&amp;"
            case "<": "&lt;"
            case ">": "&gt;"
            case "\r": "&#13;"
            default: nil
            }
        }
    }
}

/// A strict RFC 4180 reader for what ``CSVWriterCheck`` wrote: records end exactly at the line ending,
/// a quoted field is followed by the delimiter or the line ending, and an unquoted field holds no
/// quote. It keeps whether each field was quoted, since a CSV null is the null text unquoted.
struct CSVReader {
    /// One field: its text and whether it was quoted.
    struct Field: Equatable {
        var text: String
        var quoted: Bool
    }

    let delimiter: UInt8
    let lineEnding: [UInt8]

    /// The records of `bytes`, or why they are not CSV of this dialect.
    func records(_ bytes: [UInt8]) -> Result<[[Field]], FuzzFailure> {
        var records: [[Field]] = []
        var fields: [Field] = []
        var index = 0
        func endsLine(at position: Int) -> Bool {
            position + lineEnding.count <= bytes.count
                && bytes[position..<position + lineEnding.count].elementsEqual(lineEnding)
        }
        while index < bytes.count {
            var field: [UInt8] = []
            let quoted = bytes[index] == 0x22
            if quoted {
                index += 1
                while true {
                    guard index < bytes.count else { return .failure(FuzzFailure("a quoted field is not closed")) }
                    if bytes[index] == 0x22 {
                        if index + 1 < bytes.count, bytes[index + 1] == 0x22 {
                            field.append(0x22)
                            index += 2
                            continue
                        }
                        index += 1
                        break
                    }
                    field.append(bytes[index])
                    index += 1
                }
            } else {
                while index < bytes.count, bytes[index] != delimiter, !endsLine(at: index) {
                    if bytes[index] == 0x22 {
                        return .failure(FuzzFailure("a quote inside an unquoted field at byte \(index)"))
                    }
                    field.append(bytes[index])
                    index += 1
                }
            }
            fields.append(Field(text: String(decoding: field, as: UTF8.self), quoted: quoted))
            if index < bytes.count, bytes[index] == delimiter {
                index += 1
                guard index < bytes.count else { return .failure(FuzzFailure("the text ends after a delimiter")) }
            } else if endsLine(at: index) {
                index += lineEnding.count
                records.append(fields)
                fields = []
            } else {
                return .failure(FuzzFailure("a field ends at byte \(index) without a delimiter or line ending"))
            }
        }
        guard fields.isEmpty else { return .failure(FuzzFailure("the last record has no line ending")) }
        return .success(records)
    }
}

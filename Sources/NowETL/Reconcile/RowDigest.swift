import Foundation

/// The SHA-256 of one record's compared fields in a canonical encoding, so two instances' copies of a
/// record compare by one 32-byte value.
///
/// The encoding, for each field in the order given (the reconciliation sorts them by name): the field
/// name's UTF-8 length as 4 bytes big-endian and its bytes, then `0x00` when the record has no value
/// for the field (absent from the response, or JSON `null`), or `0x01`, the value's UTF-8 length as
/// 8 bytes big-endian and its bytes. Lengths keep `("a", "bc")` and `("ab", "c")` apart, the tag keeps
/// an empty string apart from no value. Values are the stored values (`sysparm_display_value=false`);
/// a value sent with its display value or link counts by its stored value alone.
struct RowDigest: Sendable {
    /// The compared fields, in encoding order.
    let fields: [String]
    /// Each field's name with its length prefix, encoded once.
    private let prefixes: [[UInt8]]

    /// A digest over `fields`, in that order.
    init(fields: [String]) {
        self.fields = fields
        prefixes = fields.map { name in
            let bytes = Array(name.utf8)
            return Self.bigEndian(UInt64(bytes.count), bytes: 4) + bytes
        }
    }

    /// The stored value of `field` in `record`; `nil` for none.
    static func value(of field: String, in record: Record) -> String? {
        switch record.fields[field] {
        case .text(let text): text
        case .forms(let value, _, _): value
        case .null, nil: nil
        }
    }

    /// The digest of `record`: its encoding built in one buffer and hashed at once (a buffer, a few
    /// temporary arrays and an `EVP_DigestUpdate` per field cost 25 µs a record in a debug build).
    func digest(of record: Record) -> SHA256.Digest {
        var encoding: [UInt8] = []
        encoding.reserveCapacity(256)
        for (index, field) in fields.enumerated() {
            encoding.append(contentsOf: prefixes[index])
            if let value = Self.value(of: field, in: record) {
                encoding.append(1)
                let utf8 = value.utf8
                let count = UInt64(utf8.count)
                for shift in stride(from: 56, through: 0, by: -8) {
                    encoding.append(UInt8(truncatingIfNeeded: count >> UInt64(shift)))
                }
                encoding.append(contentsOf: utf8)
            } else {
                encoding.append(0)
            }
        }
        return SHA256.hash(encoding)
    }

    /// The fields whose stored values differ between `source` and `target`, in encoding order.
    ///
    /// Byte by byte, as the digest compares: Swift's `==` on strings holds canonically equivalent ones
    /// equal (`e` + U+0301 and `é`), which an instance stores and returns as different values.
    func differingFields(_ source: Record, _ target: Record) -> [String] {
        fields.filter { field in
            switch (Self.value(of: field, in: source), Self.value(of: field, in: target)) {
            case (nil, nil): false
            case (let a?, let b?): !a.utf8.elementsEqual(b.utf8)
            default: true
            }
        }
    }

    private static func bigEndian(_ value: UInt64, bytes count: Int) -> [UInt8] {
        (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}

import Foundation
import NowETL

/// ``FastPageDecoder`` against the reference ``FoundationPageDecoder`` on one body: both throw (the
/// fast message starting with the reference's) or both give the same records; the same with a field
/// projection; and a one-pass keyset read, when the fast decoder offers one, agrees with its records.
enum PageDecoderCheck {
    /// The projection checked beside the whole records: a field pages always carry, two that seeds
    /// and awkward-value pages use, and one that is never there.
    static let projection: Set<String> = ["sys_id", "number", "x", "no_such_field"]

    static func check(_ bytes: [UInt8]) -> FuzzFailure? {
        let body = Data(bytes)
        if let failure = compare(body, fields: nil) { return failure }
        if let failure = compare(body, fields: projection) { return failure }
        return keysetRead(body)
    }

    private enum Outcome: Equatable {
        case records([Record])
        case threw(String)
    }

    private static func outcome(_ body: Data, _ decode: (Data) throws(PageDecodingError) -> [Record]) -> Outcome {
        do {
            return .records(try decode(body))
        } catch {
            return .threw(error.message)
        }
    }

    private static func compare(_ body: Data, fields: Set<String>?) -> FuzzFailure? {
        var reference = outcome(body) { body throws(PageDecodingError) in try FoundationPageDecoder().records(in: body)
        }
        if let fields, case .records(let records) = reference {
            reference = .records(records.map { Record(fields: $0.fields.filter { fields.contains($0.key) }) })
        }
        let fast = outcome(body) { body throws(PageDecodingError) in
            try FastPageDecoder(fields: fields).records(in: body)
        }
        let label = fields == nil ? "" : " (projection)"
        switch (reference, fast) {
        case (.records(let expected), .records(let actual)):
            guard actual == expected else {
                return FuzzFailure("records differ\(label): reference \(expected), fast \(actual)")
            }
        case (.threw(let expected), .threw(let actual)):
            guard actual.hasPrefix(expected) else {
                return FuzzFailure("messages differ\(label): reference '\(expected)', fast '\(actual)'")
            }
        case (.records(let expected), .threw(let message)):
            return FuzzFailure("only the fast decoder threw\(label): '\(message)'; reference \(expected)")
        case (.threw(let message), .records(let actual)):
            return FuzzFailure("only the reference threw\(label): '\(message)'; fast \(actual)")
        }
        return nil
    }

    /// A one-pass read holds the records ``FastPageDecoder/records(in:)`` gives, their count and the
    /// greatest sys_id byte by byte; it is offered only for a body NowData may page on.
    private static func keysetRead(_ body: Data) -> FuzzFailure? {
        guard let read = FastPageDecoder().keysetPageRead(of: body) else { return nil }
        guard let records = try? FastPageDecoder().records(in: body) else {
            return FuzzFailure("a keyset read of a body that records(in:) refuses")
        }
        guard read.content == records, read.recordCount == records.count else {
            return FuzzFailure("the keyset read differs from records(in:): \(read.content) / \(records)")
        }
        let greatest = records.compactMap(\.sysID).max { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        guard read.lastSysId == greatest else {
            return FuzzFailure(
                "the keyset read's last sys_id \(String(describing: read.lastSysId)) is not the greatest of the "
                    + "records, \(String(describing: greatest))")
        }
        return nil
    }
}

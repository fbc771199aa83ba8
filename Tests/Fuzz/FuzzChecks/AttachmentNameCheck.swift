@testable import NowETL

/// An attachment's `file_name` from the network made into a file name (``AttachmentFileName``): for
/// any text the name is not empty, at most 200 bytes, holds no `/`, `\`, NUL or control character,
/// does not start with a dot, and is its own safe form (made safe twice, it stays the same).
enum AttachmentNameCheck {
    static func check(_ bytes: [UInt8]) -> FuzzFailure? {
        let name = String(decoding: bytes, as: UTF8.self)
        let safe = AttachmentFileName.safe(name)
        if safe.isEmpty { return FuzzFailure("\(name.debugDescription) became an empty name") }
        if safe.utf8.count > AttachmentFileName.maximumBytes {
            return FuzzFailure("\(name.debugDescription) became \(safe.utf8.count) bytes: \(safe.debugDescription)")
        }
        if safe.hasPrefix(".") { return FuzzFailure("\(name.debugDescription) became \(safe.debugDescription)") }
        if let bad = safe.unicodeScalars.first(where: {
            $0 == "/" || $0 == "\\" || $0.value < 0x20 || (0x7F...0x9F).contains($0.value)
        }) {
            return FuzzFailure(
                "\(name.debugDescription) became \(safe.debugDescription), holding U+\(String(bad.value, radix: 16))")
        }
        let again = AttachmentFileName.safe(safe)
        if again != safe {
            return FuzzFailure("not stable: \(safe.debugDescription) became \(again.debugDescription)")
        }
        return nil
    }
}

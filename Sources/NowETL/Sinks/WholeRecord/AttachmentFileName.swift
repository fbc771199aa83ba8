/// The name an attachment's file gets on disk, made from the instance's `file_name` — text from the
/// network, so it may hold `/`, `..`, control characters or a thousand bytes.
///
/// The rules: `/`, `\`, NUL and control characters (C0, DEL, C1) become `_`; leading dots become `_`
/// (no `.`, `..`, hidden file or name of the form of nowetl's temporary files); at most 200 bytes of
/// UTF-8, cut at a character and keeping the extension where it is short; an empty name becomes
/// `attachment`. Two attachments of one name never meet: each has a directory of its own (its sys_id).
enum AttachmentFileName {
    /// The most bytes of a name (file systems allow 255).
    static let maximumBytes = 200

    /// `name` made safe by the rules above.
    static func safe(_ name: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in name.unicodeScalars {
            let value = scalar.value
            let refused = value < 0x20 || (0x7F...0x9F).contains(value) || scalar == "/" || scalar == "\\"
            scalars.append(refused ? "_" : scalar)
        }
        var text = String(scalars)
        let dots = text.prefix { $0 == "." }.count
        text = String(repeating: "_", count: dots) + text.dropFirst(dots)
        if text.utf8.count > maximumBytes {
            let dot = text.lastIndex(of: ".")
            let suffix = dot.map { String(text[$0...]) }.flatMap { $0.utf8.count <= 16 ? $0 : nil } ?? ""
            var kept = ""
            for character in text.dropLast(suffix.count) {
                if kept.utf8.count + character.utf8.count + suffix.utf8.count > maximumBytes { break }
                kept.append(character)
            }
            text = kept + suffix
        }
        return text.isEmpty ? "attachment" : text
    }
}

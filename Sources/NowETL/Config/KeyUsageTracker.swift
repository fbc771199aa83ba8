/// Remembers, for every mapping a decode opened as a keyed container, which keys its `CodingKey`
/// type accepts and which keys the `init(from:)` asked for, so that keys nobody asked for can be
/// reported as unknown once decoding is over.
///
/// A mapping is identified by its path (`tables[0].columns[1]`); opening it again (a type that
/// looks at the same mapping through two key types) merges the records.
final class KeyUsageTracker {
    /// What is known about one mapping.
    struct Usage {
        var path: ConfigPath
        var entries: [YAMLNode.Entry]
        /// Keys some opening `CodingKey` type can represent.
        var accepted: Set<String> = []
        /// Keys an `init(from:)` decoded, tested with `contains` or opened a nested container for.
        var accessed: Set<String> = []
        /// Known key names, in declaration order, for suggestions.
        var candidates: [String] = []
    }

    /// An entry no decoding step accounts for.
    struct UnknownKey {
        var usage: Usage
        var entry: YAMLNode.Entry
    }

    private var usages: [Usage] = []
    private var indexByPath: [ConfigPath: Int] = [:]

    /// Records that the mapping at `path` was opened with a key type.
    func open(
        path: ConfigPath, entries: [YAMLNode.Entry], accepts: (String) -> Bool, candidates: [String]
    ) {
        let index: Int
        if let existing = indexByPath[path] {
            index = existing
        } else {
            index = usages.count
            indexByPath[path] = index
            usages.append(Usage(path: path, entries: entries))
        }
        for entry in entries where accepts(entry.key) {
            usages[index].accepted.insert(entry.key)
        }
        for candidate in candidates where !usages[index].candidates.contains(candidate) {
            usages[index].candidates.append(candidate)
        }
    }

    /// Records that `key` of the mapping at `path` was asked for (present or not).
    func access(path: ConfigPath, key: String) {
        guard let index = indexByPath[path] else { return }
        usages[index].accessed.insert(key)
        if !usages[index].candidates.contains(key) { usages[index].candidates.append(key) }
    }

    /// Every mapping opened so far, by path, with the key names some opening `CodingKey` type knows
    /// (mappings whose keys are the file's own, such as `coalesce:`, list none).
    var knownKeys: [String: [String]] {
        Dictionary(usages.map { ($0.path.description, $0.candidates) }, uniquingKeysWith: { first, _ in first })
    }

    /// The first unknown key in file order.
    ///
    /// - Parameter certainOnly: `true` after a failed decode, when not every key may have been
    ///   asked for yet: only keys no opening key type can even represent count. `false` after a
    ///   successful decode: every key that was not asked for counts.
    func firstUnknownKey(certainOnly: Bool) -> UnknownKey? {
        var first: UnknownKey?
        for usage in usages {
            let known = certainOnly ? usage.accepted : usage.accessed
            for entry in usage.entries where !known.contains(entry.key) {
                if first == nil || entry.keyMark < first!.entry.keyMark {
                    first = UnknownKey(usage: usage, entry: entry)
                }
            }
        }
        return first
    }
}

/// The known name a mistyped one most likely meant (`--tables` → `--table`).
enum NearestName {
    /// The nearest of `names` to `typed`: a name `typed` is the only prefix of, else the one within an edit
    /// distance of at most a third of its length (two at most; a swap of neighbours is one edit), else `nil`.
    static func find(_ typed: String, among names: [String]) -> String? {
        let prefixed = names.filter { $0.hasPrefix(typed) && typed.count >= 3 }
        if prefixed.count == 1 { return prefixed[0] }
        let scored = names.map { (name: $0, distance: distance(typed, $0)) }
        guard let best = scored.min(by: { $0.distance < $1.distance }) else { return nil }
        let undashed = best.name.drop { $0 == "-" }.count
        let limit = min(2, max(1, undashed / 3))
        guard best.distance <= limit, scored.filter({ $0.distance == best.distance }).count == 1 else { return nil }
        return best.name
    }

    /// The optimal-string-alignment distance: insertions, deletions, substitutions and swaps of neighbours.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var rows = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { rows[i][0] = i }
        for j in 0...b.count { rows[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1)
                }
            }
        }
        return rows[a.count][b.count]
    }
}

/// The deterministic pseudo-random generator behind all seeded data: xoshiro256** seeded through
/// SplitMix64.
///
/// The same seed gives the same sequence on every machine and Swift version, which is why nothing
/// here goes through the standard library's `random(in:using:)` (its algorithm is not a contract)
/// or `SystemRandomNumberGenerator`.
struct SeedRandom: RandomNumberGenerator, Sendable {
    private var s0: UInt64
    private var s1: UInt64
    private var s2: UInt64
    private var s3: UInt64

    /// A generator whose state is derived from `seed` with SplitMix64.
    init(seed: UInt64) {
        var state = seed
        s0 = Self.splitMix(&state)
        s1 = Self.splitMix(&state)
        s2 = Self.splitMix(&state)
        s3 = Self.splitMix(&state)
    }

    /// A generator for an independent stream: the same seed with a different `stream` label gives an
    /// unrelated sequence, so adding rows to one table never shifts another table's data.
    init(seed: UInt64, stream: String) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in stream.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        self.init(seed: seed ^ hash)
    }

    /// The next 64 random bits.
    mutating func next() -> UInt64 {
        let result = rotate(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = rotate(s3, 45)
        return result
    }

    /// A uniform integer in `0..<bound` (`bound` > 0), by multiply-high (bias below 2⁻⁴⁰ for our bounds).
    mutating func below(_ bound: Int) -> Int {
        Int(truncatingIfNeeded: UInt64(bound).multipliedFullWidth(by: next()).high)
    }

    /// A uniform integer in `range`.
    mutating func between(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.upperBound - range.lowerBound + 1)
    }

    /// `true` with probability `percent` / 100.
    mutating func percent(_ percent: Int) -> Bool { below(100) < percent }

    /// `true` with probability `perMille` / 1000.
    mutating func perMille(_ perMille: Int) -> Bool { below(1000) < perMille }

    /// A uniform double in `0..<1`.
    mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// A uniformly chosen element of a non-empty array.
    mutating func pick<Element>(_ array: [Element]) -> Element { array[below(array.count)] }

    /// An index into `weights`, chosen with probability proportional to its weight.
    mutating func weighted(_ weights: [Int]) -> Int {
        var total = 0
        for weight in weights { total += weight }
        var roll = below(total)
        for (index, weight) in weights.enumerated() {
            if roll < weight { return index }
            roll -= weight
        }
        return weights.count - 1
    }

    /// What ``sysID()`` mixes into every sys_id it draws; `nil` leaves them as drawn.
    ///
    /// Set from `--sys-id-salt`: a second instance seeded with the same seed value and plan gets the
    /// same names and values under other sys_ids, as two real instances hold the same people under
    /// sys_ids of their own. The salt changes no other draw, so everything but the sys_ids (and the
    /// references holding them) stays byte for byte as without it.
    var sysIDSalt: SysIDBits?

    /// A fresh sys_id: two draws, mixed with ``sysIDSalt`` when there is one (XOR, then SplitMix64's
    /// finalizer, a bijection: distinct draws stay distinct sys_ids).
    mutating func sysID() -> SysIDBits {
        let drawn = SysIDBits(high: next(), low: next())
        guard let salt = sysIDSalt else { return drawn }
        return SysIDBits(high: Self.finalize(drawn.high ^ salt.high), low: Self.finalize(drawn.low ^ salt.low))
    }

    /// The salt for the text of `--sys-id-salt`; `nil` for an empty text (no salt).
    static func sysIDSalt(_ text: String) -> SysIDBits? {
        guard !text.isEmpty else { return nil }
        var random = SeedRandom(seed: 0x7361_6C74, stream: text)
        return SysIDBits(high: random.next(), low: random.next())
    }

    private func rotate(_ value: UInt64, _ count: UInt64) -> UInt64 { (value << count) | (value >> (64 - count)) }

    private static func splitMix(_ state: inout UInt64) -> UInt64 {
        state = state &+ 0x9e37_79b9_7f4a_7c15
        return finalize(state)
    }

    /// SplitMix64's output function: a bijection on 64-bit values that scatters every input bit.
    private static func finalize(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}

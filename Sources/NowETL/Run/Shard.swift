import NowQuery

/// One slice of a pipeline's work for `nowetl run --shard I/N`: the `I`-th of `N` consecutive sys_id
/// ranges of **every** table of the run.
///
/// Every shard reads the same share of every table rather than whole tables: an estate's tables differ
/// in size by orders of magnitude, so handing out whole tables leaves one shard with the big one and
/// the others idle, while sys_ids (GUIDs) spread evenly over the key space. The ranges are those of
/// ``SysIDRange/partitions(_:)``, so they are the same on every machine, cover the key space without
/// overlap, and shard `I`'s rows all sort before shard `I+1`'s: the merge joins the shards' spill parts
/// in shard order and gets the sys_id order of a single run.
///
/// `I` is 0-based (`0..<N`), as Kubernetes' `JOB_COMPLETION_INDEX` is.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    /// The most shards a run may be cut into.
    public static let maximumCount = 1024

    /// The shard's index, `0..<count`.
    public let index: Int
    /// How many shards the run is cut into.
    public let count: Int

    /// A shard, or `nil` when `index` is not in `0..<count` or `count` not in `1...maximumCount`.
    public init?(index: Int, count: Int) {
        guard (1...Self.maximumCount).contains(count), (0..<count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// Parses `I/N` (`--shard`).
    ///
    /// - Throws: ``NowETLArguments/UsageError`` (exit 64) for anything but two decimal numbers with
    ///   `0 <= I < N <= 1024`.
    public static func parse(_ text: String) throws(NowETLArguments.UsageError) -> Shard {
        let pieces = text.split(separator: "/", omittingEmptySubsequences: false)
        let isNumber = { (piece: Substring) in !piece.isEmpty && piece.allSatisfy { $0 >= "0" && $0 <= "9" } }
        guard pieces.count == 2, isNumber(pieces[0]), isNumber(pieces[1]), let index = Int(pieces[0]),
            let count = Int(pieces[1])
        else {
            throw NowETLArguments.UsageError(
                description: "--shard needs I/N (the 0-based shard index and the shard count, e.g. 0/3), got '\(text)'")
        }
        guard let shard = Shard(index: index, count: count) else {
            throw NowETLArguments.UsageError(
                description:
                    "--shard \(text): the index is 0-based and must be below the count (0…\(max(0, count - 1)))"
                    + ", and the count 1…\(maximumCount)")
        }
        return shard
    }

    /// `I/N`.
    public var description: String { "\(index)/\(count)" }

    /// The sys_id range of every table this shard reads.
    public var keyRange: SysIDRange { SysIDRange.partitions(count)[index] }

    /// ``keyRange`` cut into `pieces` consecutive ranges of about equal width: the shard's partitions,
    /// as a single run cuts the whole key space into `source.concurrency`. The outer bounds are the
    /// key range's own, so the pieces cover it exactly.
    public func partitions(_ pieces: Int) -> [SysIDRange] {
        let range = keyRange
        let pieces = max(1, min(pieces, 256))
        guard pieces > 1 else { return [range] }
        let low = range.lowerBound.flatMap(KeySpace.position) ?? 0
        let high = range.upperBound.flatMap(KeySpace.position) ?? UInt128.max
        let step = (high - low) / UInt128(pieces)
        guard step > 0 else { return [range] }
        var ranges: [SysIDRange] = []
        var lower = range.lowerBound
        for piece in 1..<pieces {
            let bound = KeySpace.id(at: low + step * UInt128(piece))
            ranges.append(SysIDRange(lowerBound: lower, upperBound: bound))
            lower = bound
        }
        ranges.append(SysIDRange(lowerBound: lower, upperBound: range.upperBound))
        return ranges
    }
}

import Foundation
import NowETL

#if canImport(Glibc)
    import Glibc
#endif

/// One decoder's figures over the benchmark's pages: bytes, records, wall and CPU seconds, MB/s.
struct DecoderTiming {
    /// The decoder's name as printed.
    var name: String
    /// The bytes decoded (all pages, every repetition).
    var bytes: Int
    /// The records produced (all pages, every repetition).
    var records: Int
    /// How many times every page was decoded.
    var repetitions: Int
    /// Wall seconds of all repetitions.
    var wallSeconds: Double
    /// CPU seconds (user + system, this process) of all repetitions.
    var cpuSeconds: Double
    /// Whether the decoder's records equal the reference decoder's on every page (nil for the reference
    /// itself and for a bare parse that builds no records).
    var agreesWithReference: Bool?

    /// Megabytes (10^6 bytes) per CPU second: one core's decode rate.
    var megabytesPerCPUSecond: Double { cpuSeconds > 0 ? Double(bytes) / 1e6 / cpuSeconds : 0 }

    /// Decodes every page with `decode` until at least `minimumSeconds` of wall time (and at least once).
    ///
    /// - Parameter decode: returns the record count of one page, or throws when the page does not decode.
    static func measure(
        name: String, pages: [Data], minimumSeconds: Double, decode: (Data) throws -> Int
    ) rethrows -> DecoderTiming {
        let pageBytes = pages.reduce(0) { $0 + $1.count }
        var timing = DecoderTiming(
            name: name, bytes: 0, records: 0, repetitions: 0, wallSeconds: 0, cpuSeconds: 0,
            agreesWithReference: nil)
        let wallStart = Self.clock(CLOCK_MONOTONIC)
        let cpuStart = Self.clock(CLOCK_PROCESS_CPUTIME_ID)
        repeat {
            for page in pages {
                timing.records += try decode(page)
            }
            timing.bytes += pageBytes
            timing.repetitions += 1
            timing.wallSeconds = Self.clock(CLOCK_MONOTONIC) - wallStart
        } while timing.wallSeconds < minimumSeconds
        timing.cpuSeconds = Self.clock(CLOCK_PROCESS_CPUTIME_ID) - cpuStart
        return timing
    }

    /// The figures as a JSON object (one line).
    var json: String {
        let agrees = agreesWithReference.map { $0 ? "true" : "false" } ?? "null"
        return """
            {"decoder":"\(name)","bytes":\(bytes),"records":\(records),"repetitions":\(repetitions),\
            "wall_seconds":\(wallSeconds),"cpu_seconds":\(cpuSeconds),\
            "mb_per_cpu_second":\(megabytesPerCPUSecond),"agrees_with_reference":\(agrees)}
            """
    }

    private static func clock(_ id: clockid_t) -> Double {
        var spec = timespec()
        clock_gettime(id, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}

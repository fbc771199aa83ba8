// nowetl-bench: page-decoder throughput for `make bench` (scripts/bench.sh).
//
//   nowetl-bench decode [--min-seconds S] [--only DECODER] PAGE.json…
//   nowetl-bench decode-transform [--min-seconds S] [--only DECODER] PAGE.json…
//
// Reads saved Table API page bodies, times every decoder below on the same bytes (each until at least
// S wall seconds, default 2) and prints one JSON object per line: bytes, records, wall and CPU seconds,
// MB per CPU second, and whether its records equal the reference decoder's on every page.
// `decode-transform` times each decoder followed by a `RecordTransformer` into a `RowBatch` with one
// string column per field of the pages (reference columns where a field carries forms), as a table
// run does; "agrees" then compares the rows with the reference decoder's rows. `--only` times one
// decoder (e.g. FastPageDecoder) and nothing else, for a profiler.
import Foundation
import NowETL

/// The decoders compared; the first is the reference the others are checked against. A new
/// `PageDecoding` is one more line here.
let decoders: [(name: String, decoder: any PageDecoding)] = [
    ("FoundationPageDecoder", FoundationPageDecoder()),
    ("FastPageDecoder", FastPageDecoder()),
]

func fail(_ message: String, code: Int32) -> Never {
    // The process exits next either way: a message that cannot be written is dropped, not a crash.
    try? FileHandle.standardError.write(contentsOf: Data("nowetl-bench: \(message)\n".utf8))
    exit(code)
}

var arguments = Array(CommandLine.arguments.dropFirst())
guard let mode = arguments.first, mode == "decode" || mode == "decode-transform" else {
    fail("usage: nowetl-bench decode|decode-transform [--min-seconds S] [--only DECODER] PAGE.json…", code: 64)
}
arguments.removeFirst()
var minimumSeconds = 2.0
if arguments.first == "--min-seconds" {
    guard arguments.count >= 2, let seconds = Double(arguments[1]), seconds >= 0 else {
        fail("--min-seconds takes a number of seconds", code: 64)
    }
    minimumSeconds = seconds
    arguments.removeFirst(2)
}
var only: String?
if arguments.first == "--only" {
    guard arguments.count >= 2, decoders.contains(where: { $0.name == arguments[1] }) else {
        fail("--only takes one of \(decoders.map(\.name).joined(separator: ", "))", code: 64)
    }
    only = arguments[1]
    arguments.removeFirst(2)
}
guard !arguments.isEmpty else { fail("no page files given", code: 64) }

var pages: [Data] = []
for path in arguments {
    guard let page = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)", code: 1) }
    pages.append(page)
}

// The reference records, page by page, to check every other decoder against.
var reference: [[Record]] = []
for (index, page) in pages.enumerated() {
    do {
        reference.append(try decoders[0].decoder.records(in: page))
    } catch {
        fail("\(decoders[0].name) rejects \(arguments[index]): \(error)", code: 1)
    }
}

if mode == "decode-transform" {
    let transformer = TransformTiming.transformer(for: reference)
    let referenceRows = reference.map { TransformTiming.rows(of: $0, transformer: transformer) }
    for (position, entry) in decoders.enumerated() where only.map({ $0 == entry.name }) ?? true {
        var agrees = true
        for (index, page) in pages.enumerated() {
            let records = (try? entry.decoder.records(in: page)) ?? []
            if !TransformTiming.same(TransformTiming.rows(of: records, transformer: transformer), referenceRows[index])
            {
                agrees = false
            }
        }
        var timing = DecoderTiming.measure(
            name: entry.name + "+RecordTransformer", pages: pages, minimumSeconds: minimumSeconds
        ) { page in
            TransformTiming.rows(of: (try? entry.decoder.records(in: page)) ?? [], transformer: transformer).batch.count
        }
        timing.agreesWithReference = position == 0 ? nil : agrees
        print(timing.json)
    }
    exit(0)
}

// Foundation's parser alone (no Record built): the floor under FoundationPageDecoder.
if only == nil {
    let bare = DecoderTiming.measure(name: "JSONSerialization", pages: pages, minimumSeconds: minimumSeconds) { page in
        let root = try? JSONSerialization.jsonObject(with: page)
        return ((root as? [String: Any])?["result"] as? [Any])?.count ?? 0
    }
    print(bare.json)
}

for (position, entry) in decoders.enumerated() where only.map({ $0 == entry.name }) ?? true {
    var agrees = true
    for (index, page) in pages.enumerated() {
        let records = try? entry.decoder.records(in: page)
        if records != reference[index] { agrees = false }
    }
    var timing = DecoderTiming.measure(name: entry.name, pages: pages, minimumSeconds: minimumSeconds) { page in
        (try? entry.decoder.records(in: page))?.count ?? 0
    }
    timing.agreesWithReference = position == 0 ? nil : agrees
    print(timing.json)
}

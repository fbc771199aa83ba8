import Foundation
import FuzzChecks

#if canImport(Glibc)
    import Glibc
#endif

/// `nowetl-fuzz TARGET [libFuzzer options] [corpus directories]`: one libFuzzer driver for every
/// ``FuzzTarget`` (`make fuzz`, scripts/fuzz.sh).
///
/// Built with `-sanitize=fuzzer,address -DNOWETL_FUZZING` (scripts/fuzz.sh, its own scratch path) it
/// hands the remaining arguments to libFuzzer; a failed check aborts, so libFuzzer saves the input.
/// In a plain build (`swift build`) it replays files instead: `nowetl-fuzz TARGET FILE|DIRECTORY…`
/// runs each file through the check and exits 1 when one fails — how a crash input is looked at
/// without sanitizers.
@main enum NowETLFuzz {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count >= 2, let target = FuzzTarget(rawValue: arguments[1]) else {
            let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: "|")
            FileHandle.standardError.write(Data("usage: nowetl-fuzz \(names) [options] [inputs…]\n".utf8))
            exit(64)
        }
        selectedTarget = target
        #if NOWETL_FUZZING
            // libFuzzer reads its options from argv: pass everything but the target's name.
            var argv: [UnsafeMutablePointer<CChar>?] = [CommandLine.unsafeArgv[0]]
            for index in 2..<Int(CommandLine.argc) { argv.append(CommandLine.unsafeArgv[index]) }
            argv.append(nil)
            var argc = Int32(argv.count - 1)
            let status = argv.withUnsafeMutableBufferPointer { buffer in
                var base = buffer.baseAddress
                return runFuzzerDriver(&argc, &base, fuzzOneInput)
            }
            exit(status)
        #else
            exit(replay(target, paths: Array(arguments.dropFirst(2))))
        #endif
    }

    /// Runs every file named (directories: every file in them) through the check; 1 when one fails.
    static func replay(_ target: FuzzTarget, paths: [String]) -> Int32 {
        var failed = false
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                print("\(path): no such file")
                failed = true
                continue
            }
            let files =
                isDirectory.boolValue
                ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map { path + "/" + $0 }
                : [path]
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else { continue }
                if let failure = target.check(Array(data)) {
                    print("\(file): FAILED: \(failure)")
                    failed = true
                } else {
                    print("\(file): ok")
                }
            }
        }
        return failed ? 1 : 0
    }
}

/// The target `main` chose; libFuzzer's callback has no context argument.
nonisolated(unsafe) private var selectedTarget = FuzzTarget.pageDecoder

/// libFuzzer's entry point: runs the selected check and aborts on a failure, which libFuzzer reports
/// as a crash and saves the input of.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    if let failure = selectedTarget.check(bytes) {
        FileHandle.standardError.write(Data("nowetl-fuzz \(selectedTarget.rawValue): \(failure)\n".utf8))
        abort()
    }
    return 0
}

#if NOWETL_FUZZING
    /// libFuzzer's driver (`int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*cb)(const uint8_t *,
    /// size_t))`, compiler-rt's FuzzerInterface.h). SwiftPM links an executable's `main` to the module's
    /// own entry point, so libFuzzer's `main` is not the one that runs; ours starts the driver. Declared
    /// here, not in a C target: its three pointer arguments and `int` result are passed alike by the
    /// C and Swift calling conventions on the platforms the toolchain fuzzes on (x86_64, arm64 Linux).
    @_silgen_name("LLVMFuzzerRunDriver")
    func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<Int32>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
    ) -> Int32
#endif

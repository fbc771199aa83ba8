import Foundation
import NowETL

// Before anything holds a secret: no core file of this process (CoreDumpPolicy).
if let warning = CoreDumpPolicy.apply() { StandardStream.error.write(warning + "\n") }
// Before the threads that would each get an arena: one malloc arena (MemoryPolicy).
MemoryPolicy.apply()
exit(await NowETLCommand.main(Array(CommandLine.arguments.dropFirst()), stopSignals: .install()))

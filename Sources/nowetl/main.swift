import Foundation
import NowETL

// Before anything holds a secret: no core file of this process (CoreDumpPolicy).
if let warning = CoreDumpPolicy.apply() { StandardStream.error.write(warning + "\n") }
exit(await NowETLCommand.main(Array(CommandLine.arguments.dropFirst()), stopSignals: .install()))

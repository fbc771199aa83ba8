import Foundation
import NowETL

// The pipeline runner lands with issue 4; until then the command says so instead of pretending.
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--version" {
    print("nowetl \(nowetlVersion)")
    exit(0)
}
FileHandle.standardError.write(Data("nowetl: pipelines are not implemented yet\n".utf8))
exit(1)

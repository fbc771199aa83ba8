import Foundation
import NowETL

exit(await NowETLCommand.main(Array(CommandLine.arguments.dropFirst()), stopSignals: .install()))

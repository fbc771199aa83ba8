import Foundation
import NowSim

exit(NowSimCommand.main(Array(CommandLine.arguments.dropFirst())))

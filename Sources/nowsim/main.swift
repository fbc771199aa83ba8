import Foundation
import NowSim

print("nowsim: not yet wired")

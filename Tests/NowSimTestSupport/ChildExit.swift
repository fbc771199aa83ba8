// Shared by the NowSim, NowData and NowETL tests, which all start nowsim processes.
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Waits until the child `pid` has exited, reaping it with `waitpid` if Foundation has not; returns
/// its exit status (128 + signal when killed), or `nil` when it still runs after `timeout` seconds.
///
/// `Foundation.Process.isRunning` is not trusted here: under load in the test runner it was seen
/// never to turn false, hanging the suite in a polling loop.
public func waitForChildExit(_ process: Process, timeout: TimeInterval) -> Int32? {
    let pid = process.processIdentifier
    let deadline = Date().addingTimeInterval(timeout)
    while true {
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == pid { return (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f) }
        if result == -1 && errno == ECHILD {
            // Foundation reaped it; its status is final once isRunning has turned false.
            let settle = Date().addingTimeInterval(1)
            while process.isRunning && Date() < settle { usleep(1_000) }
            return process.isRunning ? 0 : process.terminationStatus
        }
        if Date() >= deadline { return nil }
        usleep(5_000)
    }
}

/// SIGTERM, then SIGKILL if the child is still there after `grace` seconds; returns the exit status.
@discardableResult
public func terminateChild(_ process: Process, grace: TimeInterval = 20) -> Int32 {
    kill(process.processIdentifier, SIGTERM)
    if let status = waitForChildExit(process, timeout: grace) { return status }
    kill(process.processIdentifier, SIGKILL)
    return waitForChildExit(process, timeout: 10) ?? 137
}

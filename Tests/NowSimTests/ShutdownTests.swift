import Foundation
import NowSimTesting
import Testing

/// SIGTERM while a request is held by a `delay` fault: the request is answered and nowsim exits 0
/// instead of waiting out the delay.
@Suite(.timeLimit(.minutes(3))) struct ShutdownTests {
    @Test func sigtermAnswersADelayedRequestAndExitsCleanly() async throws {
        // Ten minutes: far longer than the harness's 20 s between SIGTERM and SIGKILL (exit 137).
        let sim = try await NowSimInstance.start(faults: ["delay:ms=600000,table=incident"])
        let delayed = Task { try await sim.request("/api/now/table/incident", query: [("sysparm_limit", "1")]) }
        // The faults endpoint is not delayed; it says when the request has reached the delay.
        try await withDeadline(120) {
            while true {
                let faults = try await sim.request("/api/nowsim/faults")
                let result = (faults.json as? [String: Any])?["result"] as? [String: Any]
                if let matched = result?["matched"] as? [Int], matched == [1] { return }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        let status = await sim.stop()  // SIGTERM, SIGKILL after 20 s
        #expect(status == 0)
        let response = try await withDeadline(120) { try await delayed.value }
        #expect(response.status == 503)
        let error = (response.json as? [String: Any])?["error"] as? [String: Any]
        #expect(error?["message"] as? String == "Service Unavailable")
    }
}

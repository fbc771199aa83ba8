import Foundation

/// `GET|PUT /api/nowsim/faults`: reads or replaces the injected faults at run time (admins only).
///
/// Not part of any ServiceNow API: it lets a test switch misbehaviour on and off without
/// restarting nowsim. `PUT` takes `{"faults":["rate-limit:every=3", …]}`; both answer
/// `{"result":{"faults":[…],"matched":[…]}}` with the faults in force and how many requests each has
/// seen so far (so a test can wait until a delayed request has arrived).
struct FaultsEndpoint {
    static let path = "/api/nowsim/faults"
    let injector: FaultInjector

    func handle(_ request: HTTPRequest, caller: Caller) -> HTTPResponse {
        guard caller.isAdmin else { return ErrorEnvelope.insufficientRights }
        switch request.method {
        case "GET", "HEAD":
            break
        case "PUT", "POST":
            guard let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any],
                let specs = object["faults"] as? [String]
            else {
                return ErrorEnvelope.badRequest(
                    message: "Exception while reading request",
                    detail: "Expected {\"faults\":[\"KIND[:key=value,…]\", …]}")
            }
            var faults: [Fault] = []
            for spec in specs {
                do {
                    faults.append(try Fault(parsing: spec))
                } catch {
                    return ErrorEnvelope.badRequest(message: "Invalid fault", detail: error.description)
                }
            }
            injector.replace(with: faults)
        default:
            return ErrorEnvelope.methodNotAllowed(request.method, allowed: ["GET", "PUT"])
        }
        var out = JSONWriter()
        out.raw("{\"result\":{\"faults\":[")
        for (index, fault) in injector.current.enumerated() {
            if index > 0 { out.byte(UInt8(ascii: ",")) }
            out.string(fault.description)
        }
        out.raw("],\"matched\":[")
        for (index, count) in injector.matchedCounts.enumerated() {
            if index > 0 { out.byte(UInt8(ascii: ",")) }
            for byte in String(count).utf8 { out.byte(byte) }
        }
        out.raw("]}}")
        return TableAPI.json(status: 200, body: out.bytes)
    }
}

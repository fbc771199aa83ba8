import Foundation
import NowData

extension TableRunner {
    /// Read access to what `run` reads besides the tables' own records, checked by `validate --online`
    /// before anything is fetched: `sys_audit_delete` (one row, `sys_id` only) for every selected table
    /// with `deletes: true` — which an instance lets only `admin` read by default — so that a night does
    /// not fail on it after the rows were fetched.
    ///
    /// - Throws: ``NowETLError`` naming the table: exit 77 when the user may not read it, the request's
    ///   own code when the instance could not be asked.
    public func checkAccess(in configuration: PipelineConfiguration, tables: [String]) async throws {
        let service = makeService { _ in }
        let selected = configuration.tables.filter { tables.isEmpty || tables.contains($0.table) }
        for table in selected where table.incremental?.deletes == true {
            let probe = FetchConfiguration(
                limit: 1, readConfiguration: FieldReadConfiguration(includeFields: ["sys_id"], options: []))
            do {
                _ = try await service.records(from: DeletionCapture.auditTable, configuration: probe)
            } catch {
                var failure = NowETLError(table: table.table, during: "reading sys_audit_delete", error)
                if failure.code == .authentication {
                    failure.remedy =
                        "deletes: true reads sys_audit_delete, which an instance lets only admin read by default: "
                        + "grant the user read access to it (an ACL or a role), or set deletes: false"
                }
                throw failure
            }
        }
    }
}

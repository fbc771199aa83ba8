import Foundation
import NowData

extension TableRunner {
    /// Read access to what `run` reads, checked by `validate --online` before anything is fetched, so
    /// that a night does not fail on it: each selected table itself (one row, `sys_id` only — the
    /// dictionary check reads only `sys_db_object` and `sys_dictionary`, and a table's own ACLs may
    /// still refuse its records), and `sys_audit_delete` for every selected table with `deletes: true`,
    /// which users without admin often may not read.
    ///
    /// - Throws: ``NowETLError`` naming the table: exit 77 when the user may not read it (told with who
    ///   asked and what is needed, ``explaining(_:)``), the request's own code when the instance could
    ///   not be asked.
    public func checkAccess(in configuration: PipelineConfiguration, tables: [String]) async throws {
        let service = makeService { _ in }
        let selected = configuration.tables.filter { tables.isEmpty || tables.contains($0.table) }
        let probe = FetchConfiguration(
            limit: 1, readConfiguration: FieldReadConfiguration(includeFields: ["sys_id"], options: []))
        for table in selected {
            var reads = [(table.table, "reading one record")]
            if table.incremental?.deletes == true { reads.append((DeletionCapture.auditTable, "reading deletions")) }
            for (source, step) in reads {
                do {
                    _ = try await service.records(from: source, configuration: probe)
                } catch {
                    throw explaining(NowETLError(table: table.table, during: step, error))
                }
            }
        }
    }
}

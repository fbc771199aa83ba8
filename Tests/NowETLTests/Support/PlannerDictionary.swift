import Foundation

@testable import NowETL

/// A dictionary for the planner without an instance: the incident fields of every stored type that a
/// database or date-time output maps (SinkSQLitePlanTests, SinkDateTimeFormatTests).
enum PlannerDictionary {
    /// A source that is never reached.
    static let source = SourceConfiguration(
        instance: URL(fileURLWithPath: "/").deletingLastPathComponent(), auth: .basic(user: "u", password: Secret("p")))

    /// Fields of task and incident, one of each internal type the planner maps.
    static let fields = [
        DictionaryField(name: "sys_id", internalType: "GUID", definedOn: "task"),
        DictionaryField(name: "number", internalType: "string", definedOn: "task"),
        DictionaryField(name: "priority", internalType: "integer", definedOn: "task", isChoice: true),
        DictionaryField(name: "active", internalType: "boolean", definedOn: "task"),
        DictionaryField(name: "opened_at", internalType: "glide_date_time", definedOn: "task"),
        DictionaryField(name: "due_date", internalType: "due_date", definedOn: "task"),
        DictionaryField(name: "u_day", internalType: "glide_date", definedOn: "incident"),
        DictionaryField(name: "business_duration", internalType: "glide_duration", definedOn: "task"),
        DictionaryField(name: "u_cost", internalType: "currency", definedOn: "incident"),
        DictionaryField(name: "caller_id", internalType: "reference", reference: "sys_user", definedOn: "incident"),
    ]
}

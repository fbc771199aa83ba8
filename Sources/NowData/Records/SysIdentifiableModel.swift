/// A `Codable` model of a table record that carries the record's sys_id.
///
/// Required by ``NowTableService/create(_:in:path:coder:writeOptions:configuration:)``,
/// ``NowTableService/update(_:in:coder:writeOptions:configuration:)`` and
/// ``NowTableService/delete(_:from:)``. The Table API's `sys_id` key maps to ``sysId`` when models are
/// decoded through a ``Coder`` (only at the record level; nested objects are untouched), so a plain
/// synthesized conformance works:
///
/// ```swift
/// struct User: SysIdentifiableModel {
///     var sysId: String = ""
///     var name: String
/// }
/// ```
///
/// Do not also map `sysId` to `"sys_id"` in your own `CodingKeys`; the mapping is done for you.
public protocol SysIdentifiableModel: Codable {
    /// The record's sys_id; empty before the record is created.
    var sysId: SysID { get set }
}

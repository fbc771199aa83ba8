/// A record's sys_id as the Table API writes it: 32 lowercase hex digits on a real instance.
///
/// Text, not a number, because it is only ever compared, sent and stored as text; demo data and older
/// imports carry sys_ids of other shapes, and keyset paging orders them as the instance does (by text).
public typealias SysID = String

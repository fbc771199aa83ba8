import Foundation

/// The write methods for fields held as plain strings, as the SDK's examples write them:
/// `let fields = ["short_description" : "test description"]` is a `[String: String]`, which Swift does not
/// turn into `[FieldName: FieldValue]` by itself. Each value is sent as its text, exactly as
/// `FieldValue(text)` would be.
extension NowTableService {
    /// Inserts a record with the given string fields (POST), as the `[FieldName: FieldValue]` form does.
    public func createRecord(
        with fields: [FieldName: String], in tableName: String, writeOptions: FieldWriteOptions? = nil,
        configuration: FieldReadConfiguration? = nil
    ) async throws(NowDataError) -> Data {
        try await createRecord(
            with: fields.mapValues { FieldValue($0) }, in: tableName, writeOptions: writeOptions,
            configuration: configuration)
    }

    /// Updates the given string fields of a record (PUT), as the `[FieldName: FieldValue]` form does.
    public func updateRecord(
        sysId: SysID, in tableName: String, with fields: [FieldName: String],
        writeOptions: FieldWriteOptions? = nil, configuration: FieldReadConfiguration? = nil
    ) async throws(NowDataError) -> Data {
        try await updateRecord(
            sysId: sysId, in: tableName, with: fields.mapValues { FieldValue($0) }, writeOptions: writeOptions,
            configuration: configuration)
    }

    /// Inserts a record with the given string fields, then calls `completion` with the response JSON.
    public func createRecord(
        with fields: [FieldName: String], in tableName: String, writeOptions: FieldWriteOptions? = nil,
        configuration: FieldReadConfiguration? = nil,
        completion: @escaping @Sendable (Result<Data, NowDataError>) -> Void
    ) {
        createRecord(
            with: fields.mapValues { FieldValue($0) }, in: tableName, writeOptions: writeOptions,
            configuration: configuration, completion: completion)
    }

    /// Updates the given string fields of a record, then calls `completion` with the response JSON.
    public func updateRecord(
        sysId: SysID, in tableName: String, with fields: [FieldName: String],
        writeOptions: FieldWriteOptions? = nil, configuration: FieldReadConfiguration? = nil,
        completion: @escaping @Sendable (Result<Data, NowDataError>) -> Void
    ) {
        updateRecord(
            sysId: sysId, in: tableName, with: fields.mapValues { FieldValue($0) }, writeOptions: writeOptions,
            configuration: configuration, completion: completion)
    }
}

import Foundation

/// Completion-handler forms. Handlers run on an arbitrary thread, exactly once.
extension NowTableService {
    /// Fetches records, then calls `completion` with the response JSON.
    public func records(
        from tableName: String, configuration: FetchConfiguration? = nil,
        completion: @escaping @Sendable (Result<Data, NowDataError>) -> Void
    ) {
        complete(completion) { () async throws(NowDataError) -> Data in
            try await self.records(from: tableName, configuration: configuration)
        }
    }

    /// Fetches one record, then calls `completion` with the response JSON.
    public func record(
        with sysId: SysID, from tableName: String, configuration: FieldReadConfiguration? = nil,
        completion: @escaping @Sendable (Result<Data, NowDataError>) -> Void
    ) {
        complete(completion) { () async throws(NowDataError) -> Data in
            try await self.record(with: sysId, from: tableName, configuration: configuration)
        }
    }

    /// Inserts a record, then calls `completion` with the response JSON.
    public func createRecord(
        with fields: [FieldName: FieldValue], in tableName: String, writeOptions: FieldWriteOptions? = nil,
        configuration: FieldReadConfiguration? = nil,
        completion: @escaping @Sendable (Result<Data, NowDataError>) -> Void
    ) {
        complete(completion) { () async throws(NowDataError) -> Data in
            try await self.createRecord(
                with: fields, in: tableName, writeOptions: writeOptions, configuration: configuration)
        }
    }

    /// Updates a record, then calls `completion` with the response JSON.
    public func updateRecord(
        sysId: SysID, in tableName: String, with fields: [FieldName: FieldValue],
        writeOptions: FieldWriteOptions? = nil, configuration: FieldReadConfiguration? = nil,
        completion: @escaping @Sendable (Result<Data, NowDataError>) -> Void
    ) {
        complete(completion) { () async throws(NowDataError) -> Data in
            try await self.updateRecord(
                sysId: sysId, in: tableName, with: fields, writeOptions: writeOptions, configuration: configuration)
        }
    }

    /// Deletes a record, then calls `completion`.
    public func deleteRecord(
        sysId: SysID, from tableName: String, completion: @escaping @Sendable (Result<Void, NowDataError>) -> Void
    ) {
        complete(completion) { () async throws(NowDataError) in
            try await self.deleteRecord(sysId: sysId, from: tableName)
        }
    }

    /// Fetches and decodes models, then calls `completion`.
    public func model<Model: Decodable & Sendable>(
        _ type: Model.Type = Model.self, with sysId: SysID? = nil, from tableName: String,
        path: String = Constants.resultPath, coder: Coder = .default, configuration: FetchConfiguration? = nil,
        completion: @escaping @Sendable (Result<Model, NowDataError>) -> Void
    ) {
        complete(completion) { () async throws(NowDataError) -> Model in
            try await self.model(
                Model.self, with: sysId, from: tableName, path: path, coder: coder, configuration: configuration)
        }
    }

    /// Inserts a model, then calls `completion` with the stored model.
    public func create<Model: SysIdentifiableModel & Sendable>(
        _ model: Model, in tableName: String, coder: Coder = .default, writeOptions: FieldWriteOptions? = nil,
        configuration: FetchConfiguration? = nil, completion: @escaping @Sendable (Result<Model, NowDataError>) -> Void
    ) {
        complete(completion) { () async throws(NowDataError) -> Model in
            try await self.create(
                model, in: tableName, coder: coder, writeOptions: writeOptions, configuration: configuration)
        }
    }

    /// Updates a model's record, then calls `completion` with the stored model.
    public func update<Model: SysIdentifiableModel & Sendable>(
        _ model: Model, in tableName: String, coder: Coder = .default, writeOptions: FieldWriteOptions? = nil,
        configuration: FetchConfiguration? = nil, completion: @escaping @Sendable (Result<Model, NowDataError>) -> Void
    ) {
        complete(completion) { () async throws(NowDataError) -> Model in
            try await self.update(
                model, in: tableName, coder: coder, writeOptions: writeOptions, configuration: configuration)
        }
    }

    /// Deletes a model's record, then calls `completion`.
    public func delete<Model: SysIdentifiableModel & Sendable>(
        _ model: Model, from tableName: String, completion: @escaping @Sendable (Result<Void, NowDataError>) -> Void
    ) {
        complete(completion) { () async throws(NowDataError) in
            try await self.delete(model, from: tableName)
        }
    }

    private func complete<Value>(
        _ completion: @escaping @Sendable (Result<Value, NowDataError>) -> Void,
        _ operation: @escaping @Sendable () async throws(NowDataError) -> Value
    ) {
        Task {
            do throws(NowDataError) {
                completion(.success(try await operation()))
            } catch {
                completion(.failure(error))
            }
        }
    }
}

// The Mobile SDK's NowData framework has the encoded-query types, `SysID` and the Table API date
// formats in the one module, and its documented call forms (../shared/seeds) use `import NowData`
// alone. They live in NowQuery so nowsim can use them without the client; re-exporting keeps
// `import NowData` enough for SDK users, our tests and NowETL.
@_exported import NowQuery

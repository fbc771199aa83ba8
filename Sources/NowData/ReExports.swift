// NowQuery is part of NowData's public face: the Mobile SDK's documented call forms
// (docs/table-api.md §10) name `SysID` with `import NowData` alone, and `Filter(encodedQuery:)`,
// `PaginationStrategy.keyset(range:)` and the Coder's dates take NowQuery types. It is a target of
// its own so nowsim can use it without the client; re-exporting keeps `import NowData` enough for
// SDK users, our tests and NowETL.
@_exported import NowQuery

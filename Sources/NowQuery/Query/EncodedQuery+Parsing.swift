extension EncodedQuery {
    /// Parses encoded-query text such as `active=true^priority<=2^ORnumberSTARTSWITHINC^ORDERBYnumber`.
    ///
    /// Grammar (no escaping exists in ServiceNow, so `^` always separates segments):
    ///
    /// * The text is split on `^` into segments. A segment starting with `OR` is a condition OR-ed
    ///   with the previous condition (binds tightest); `NQ` starts a new AND-group that is OR-ed with
    ///   the previous ones; `ORDERBYDESC<field>` / `ORDERBY<field>` add a sort clause and may appear
    ///   anywhere; `EQ` (the whole segment) is the UI's end marker and may only be followed by
    ///   `ORDERBY` clauses. Any other segment is a condition AND-ed to the current group.
    /// * Empty segments (`^active=true`, `a=1^^b=2`, a trailing `^`) are ignored, as the platform
    ///   does; canonical text never contains them.
    /// * A condition is `<field><operator><value>`. The field is a dot-walked name whose parts are
    ///   `[A-Za-z0-9_]+` (`caller_id.name`, `123TEXTQUERY321`). Because a word operator such as
    ///   `ISEMPTY` is glued to the field name, the field ends at the **first** position where an
    ///   operator token starts (the longest token there wins: `ISNOTEMPTY` over `ISEMPTY`, `NOT IN`
    ///   over `NOTON`, `<=` over `<`). Column names are lower case in ServiceNow, so an upper-case
    ///   operator cannot hide inside a real field name, while values may contain anything
    ///   (`numberSTARTSWITHINC` is `number` `STARTSWITH` `INC`, not `numberSTARTSWITH` `IN` `C`).
    /// * Aliases are accepted and canonicalised: `NOTLIKE` and `!*` → `NOT LIKE`, `*` → `LIKE`,
    ///   `%` → `ENDSWITH`.
    /// * Operands by operator: `IN`/`NOT IN` the items between commas (`stateIN` is the one-item
    ///   list `[""]`, so ``Value/list(_:)`` is never empty after parsing); `BETWEEN` `low@high`; `ON`/`NOTON`
    ///   `label@start@end`; `RELATIVEGT`/`RELATIVELT` `@unit@ago|ahead@count`; `SAMEAS`, `NSAMEAS` and
    ///   the `…_FIELD` operators a field name; `ISEMPTY`, `ISNOTEMPTY`, `ANYTHING`, `EMPTYSTRING`
    ///   nothing; the others a literal, which may be empty (`assigned_to=` tests for empty).
    /// * `javascript:` values are accepted only as `gs.*` date helpers (``DateHelper``) in
    ///   `=`, `!=`, `<`, `<=`, `>`, `>=`, the `BETWEEN` bounds and the `ON`/`NOTON` bounds. Any other
    ///   script (`javascript:gs.getUserID()`) is rejected, because neither nowsim nor nowetl can
    ///   evaluate it.
    /// * Recognised but unsupported constructs (`DYNAMIC`, `IN_HIERARCHY`, `DATEPART`, `MORETHAN`,
    ///   `LESSTHAN`, `VALCHANGES`, `CHANGESFROM`, `CHANGESTO`, `DOESNOTHAVE`, `EXCLUDING`, `RLQUERY`,
    ///   `SUBQUERY`) are errors naming the construct.
    ///
    /// The empty string parses to an empty query (no conditions, no sort).
    ///
    /// - Parameter text: The encoded query, already percent-decoded.
    /// - Throws: ``EncodedQueryError`` with the UTF-8 byte offset of the first problem.
    public init(parsing text: String) throws(EncodedQueryError) {
        var text = text
        let result: Result<EncodedQuery, EncodedQueryError> = text.withUTF8 { bytes in
            do throws(EncodedQueryError) {
                return .success(try EncodedQueryParser(bytes: bytes).parseQuery())
            } catch {
                return .failure(error)
            }
        }
        self = try result.get()
    }
}

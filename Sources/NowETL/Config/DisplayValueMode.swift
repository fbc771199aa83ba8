import NowData

/// Which value forms a table is read with: `display_value: false | true | all`
/// (`sysparm_display_value`).
///
/// Written as a YAML boolean or as the string `all`; quoted `"true"` and `"false"` are accepted too,
/// since they are the parameter's own spelling.
public enum DisplayValueMode: String, Sendable, Hashable, CaseIterable, Decodable {
    /// Stored values only (`false`, the default): sys_ids for references, UTC date-times.
    case actual = "false"
    /// Display values only (`true`), formatted for the API user.
    case display = "true"
    /// Both (`all`): every field is `{ "value": …, "display_value": … }`.
    case all

    /// The NowData read options asking for these forms.
    public var readOptions: FieldReadConfiguration.Options {
        switch self {
        case .actual: .actualValues
        case .display: .displayValues
        case .all: [.actualValues, .displayValues]
        }
    }
}

import Foundation

/// Options for writing fields (`sysparm_suppress_auto_sys_field`, `sysparm_input_display_value`).
public struct FieldWriteOptions: OptionSet, Sendable, Hashable {
    /// The raw bit set.
    public let rawValue: Int

    /// Creates options from raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Keep the caller's values for system fields (`sys_updated_on`, …) instead of generating them.
    public static let suppressAutoSysField = FieldWriteOptions(rawValue: 1 << 0)
    /// Interpret input values as display values (reference names, user-time-zone dates).
    public static let treatInputValuesAsDisplayValues = FieldWriteOptions(rawValue: 1 << 1)

    /// The query items of these options.
    public var queryItems: [URLQueryItem] {
        var items: [URLQueryItem] = []
        if contains(.suppressAutoSysField) {
            items.append(URLQueryItem(name: "sysparm_suppress_auto_sys_field", value: "true"))
        }
        if contains(.treatInputValuesAsDisplayValues) {
            items.append(URLQueryItem(name: "sysparm_input_display_value", value: "true"))
        }
        return items
    }
}

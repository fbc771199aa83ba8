import Foundation

/// Which fields to read and in which form (`sysparm_fields`, `sysparm_display_value`,
/// `sysparm_exclude_reference_link`).
public struct FieldReadConfiguration: Sendable, Hashable {
    /// The fields to return (dot-walking allowed); empty returns all fields.
    public var includeFields: [FieldName]
    /// The value forms to return.
    public var options: Options

    /// Creates a read configuration.
    public init(includeFields: [FieldName] = [], options: Options = []) {
        self.includeFields = includeFields
        self.options = options
    }

    /// Value forms of a read.
    public struct Options: OptionSet, Sendable, Hashable, CustomStringConvertible {
        /// The raw bit set.
        public let rawValue: Int

        /// Creates options from raw bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Stored values (sys_ids for references, UTC date-times); use this when decoding `Date`s.
        public static let actualValues = Options(rawValue: 1 << 0)
        /// Display values, formatted for the authenticated user (locale, time zone), not the device.
        /// Together with ``actualValues`` each field carries both (`sysparm_display_value=all`).
        public static let displayValues = Options(rawValue: 1 << 1)
        /// Leave out the `link` of reference fields.
        public static let excludeReferenceLink = Options(rawValue: 1 << 2)

        /// The option names, e.g. `[actualValues, excludeReferenceLink]`.
        public var description: String {
            var names: [String] = []
            if contains(.actualValues) { names.append("actualValues") }
            if contains(.displayValues) { names.append("displayValues") }
            if contains(.excludeReferenceLink) { names.append("excludeReferenceLink") }
            return "[\(names.joined(separator: ", "))]"
        }
    }

    /// The value of `sysparm_display_value` these options ask for, or `nil` for the server default.
    public var displayValueParameter: String? {
        switch (options.contains(.actualValues), options.contains(.displayValues)) {
        case (true, true): return "all"
        case (false, true): return "true"
        case (true, false): return "false"
        case (false, false): return nil
        }
    }

    /// The query items of this configuration, in a stable order.
    public var queryItems: [URLQueryItem] {
        var items: [URLQueryItem] = []
        if !includeFields.isEmpty {
            items.append(URLQueryItem(name: "sysparm_fields", value: includeFields.joined(separator: ",")))
        }
        if let displayValue = displayValueParameter {
            items.append(URLQueryItem(name: "sysparm_display_value", value: displayValue))
        }
        if options.contains(.excludeReferenceLink) {
            items.append(URLQueryItem(name: "sysparm_exclude_reference_link", value: "true"))
        }
        return items
    }
}

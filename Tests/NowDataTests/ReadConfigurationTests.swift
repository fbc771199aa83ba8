import Foundation
import Testing

@testable import NowData

@Suite(.timeLimit(.minutes(5))) struct ReadConfigurationTests {
    @Test(
        arguments: [
            (FieldReadConfiguration.Options(), nil),
            ([.actualValues], "false"),
            ([.displayValues], "true"),
            ([.actualValues, .displayValues], "all"),
        ] as [(FieldReadConfiguration.Options, String?)])
    func displayValueParameter(options: FieldReadConfiguration.Options, expected: String?) {
        #expect(FieldReadConfiguration(options: options).displayValueParameter == expected)
    }

    @Test func queryItems() {
        let config = FieldReadConfiguration(
            includeFields: ["sys_id", "number", "caller_id.name"], options: [.displayValues, .excludeReferenceLink])
        #expect(
            config.queryItems == [
                URLQueryItem(name: "sysparm_fields", value: "sys_id,number,caller_id.name"),
                URLQueryItem(name: "sysparm_display_value", value: "true"),
                URLQueryItem(name: "sysparm_exclude_reference_link", value: "true"),
            ])
        #expect(FieldReadConfiguration().queryItems.isEmpty)
    }

    @Test func writeOptionsQueryItems() {
        #expect(FieldWriteOptions().queryItems.isEmpty)
        #expect(
            FieldWriteOptions([.suppressAutoSysField, .treatInputValuesAsDisplayValues]).queryItems == [
                URLQueryItem(name: "sysparm_suppress_auto_sys_field", value: "true"),
                URLQueryItem(name: "sysparm_input_display_value", value: "true"),
            ])
    }

    @Test func fetchConfigurationQueryItems() {
        let config = FetchConfiguration(
            Filter(query: "active=true", queryCategory: "cat"), 50, FieldReadConfiguration(includeFields: ["number"]))
        #expect(
            config.queryItems == [
                URLQueryItem(name: "sysparm_query", value: "active=true"),
                URLQueryItem(name: "sysparm_query_category", value: "cat"),
                URLQueryItem(name: "sysparm_limit", value: "50"),
                URLQueryItem(name: "sysparm_fields", value: "number"),
            ])
        #expect(FetchConfiguration().queryItems.isEmpty)
    }

    @Test func fieldValueLiterals() throws {
        let fields: [FieldName: FieldValue] = [
            "active": true, "priority": 2, "short_description": "Disk", "ratio": 0.5,
        ]
        let data = try JSONEncoder().encode(fields)
        let object = try JSONSerialization.jsonObject(with: data) as? [String: String]
        #expect(object == ["active": "true", "priority": "2", "short_description": "Disk", "ratio": "0.5"])
    }
}

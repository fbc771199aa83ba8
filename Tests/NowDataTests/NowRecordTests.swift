import Foundation
import Testing

@testable import NowData

@Suite(.timeLimit(.minutes(5))) struct NowRecordTests {
    @Test func valueModeWithLinks() throws {
        let json = #"""
            {"result":[{"sys_id":"a1","number":"INC1","opened_by":{"link":"https://x/api/now/table/sys_user/u1","value":"u1"},"parent":""}]}
            """#
        let records = try Data(json.utf8).decodeRecords()
        #expect(records.count == 1)
        let record = records[0]
        #expect(record.sysId == "a1")
        #expect(record.id == "a1")
        #expect(record["number"]?.value == "INC1")
        #expect(record["opened_by"]?.value == "u1")
        #expect(record["opened_by"]?.link == "https://x/api/now/table/sys_user/u1")
        #expect(record["opened_by"]?.displayValue == nil)
        #expect(record["parent"]?.value == "")
    }

    @Test func valueModeWithoutLinks() throws {
        let json = #"{"result":{"sys_id":"a1","opened_by":"u1"}}"#
        let record = try Data(json.utf8).decodeRecord()
        #expect(record["opened_by"] == NowRecord.Field(name: "opened_by", value: "u1"))
    }

    @Test func displayMode() throws {
        let json = #"""
            {"result":{"sys_id":"a1","state":"Closed","opened_by":{"display_value":"Fred","link":"https://x/u1"}}}
            """#
        let record = try Data(json.utf8).decodeRecord(options: [.displayValues])
        #expect(record["state"]?.displayValue == "Closed")
        #expect(record["state"]?.value == nil)
        #expect(record["opened_by"]?.displayValue == "Fred")
        #expect(record["opened_by"]?.link == "https://x/u1")
        #expect(record.sysId == "a1")
    }

    @Test func allMode() throws {
        let json = #"""
            {"result":[{"sys_id":{"display_value":"a1","value":"a1"},"state":{"display_value":"Closed","value":"7"},
            "opened_by":{"display_value":"Fred","link":"https://x/u1","value":"u1"},"parent":{"display_value":"","value":""}}]}
            """#
        let record = try Data(json.utf8).decodeRecords(options: [.actualValues, .displayValues])[0]
        #expect(record.sysId == "a1")
        #expect(record["state"] == NowRecord.Field(name: "state", value: "7", displayValue: "Closed"))
        #expect(
            record["opened_by"]
                == NowRecord.Field(name: "opened_by", value: "u1", displayValue: "Fred", link: "https://x/u1"))
        #expect(record["parent"]?.value == "")
    }

    @Test func nonStringScalarsAndNull() throws {
        let json = #"{"result":{"sys_id":"a","count":3,"active":true,"ratio":1.5,"gone":null}}"#
        let record = try Data(json.utf8).decodeRecord()
        #expect(record["count"]?.value == "3")
        #expect(record["active"]?.value == "true")
        #expect(record["ratio"]?.value == "1.5")
        #expect(record["gone"] != nil && record["gone"]?.value == nil)
    }

    @Test func missingResultIsCannotParseResponse() {
        #expect {
            try Data(#"{"nothing":1}"#.utf8).decodeRecords()
        } throws: { error in
            if case NowDataError.cannotParseResponse = error { return true }
            return false
        }
        #expect(throws: NowDataError.self) { try Data(#"{"result":[]}"#.utf8).decodeRecord() }
    }
}

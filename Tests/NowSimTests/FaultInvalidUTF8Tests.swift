import Foundation
import Testing

@testable import NowSim

/// The `invalid-utf8` fault: which value of which record gets the byte that is not UTF-8.
@Suite(.timeLimit(.minutes(1))) struct FaultInvalidUTF8Tests {
    static func corrupt(_ json: String, field: String? = nil, sysID: String? = nil) -> String {
        let body = InvalidUTF8Corruption(field: field, sysID: sysID).apply(to: Array(json.utf8))
        // Show the byte as "!" so expectations stay readable.
        return String(decoding: body.map { $0 == InvalidUTF8Corruption.byte ? UInt8(ascii: "!") : $0 }, as: UTF8.self)
    }

    @Test func theSpecParsesAndPrintsBack() throws {
        let fault = try Fault(parsing: "invalid-utf8:field=short_description,sys_id=abc,table=incident,every=2")
        #expect(fault.kind == .invalidUTF8(field: "short_description", sysID: "abc"))
        #expect(fault.table == "incident" && fault.every == 2)
        #expect(try Fault(parsing: fault.description) == fault)
        #expect(try Fault(parsing: "invalid-utf8").kind == .invalidUTF8(field: nil, sysID: nil))
        #expect(throws: Fault.ParseError.self) { try Fault(parsing: "invalid-utf8:colour=red") }
    }

    @Test func oneValueOfOneRecordIsCorrupted() {
        let list = #"{"result":[{"sys_id":"a","n":"1","d":"x"},{"sys_id":"b","n":"2","d":"y"}]}"#
        #expect(Self.corrupt(list) == #"{"result":[{"sys_id":"a","n":"!1","d":"x"},{"sys_id":"b","n":"2","d":"y"}]}"#)
        #expect(
            Self.corrupt(list, field: "d", sysID: "b")
                == #"{"result":[{"sys_id":"a","n":"1","d":"x"},{"sys_id":"b","n":"2","d":"!y"}]}"#)
        #expect(Self.corrupt(list, sysID: "zzz") == list, "no such record: left alone")
        #expect(Self.corrupt(list, field: "nope") == list)

        let forms = #"{"result":{"sys_id":{"display_value":"a","value":"a"},"d":{"display_value":"D","value":"d"}}}"#
        #expect(
            Self.corrupt(forms, field: "d", sysID: "a")
                == #"{"result":{"sys_id":{"display_value":"a","value":"a"},"d":{"display_value":"!D","value":"d"}}}"#)
        let xml = "<response><result><d>x</d></result></response>"
        #expect(Self.corrupt(xml) == xml)
    }
}

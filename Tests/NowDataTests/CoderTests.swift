import Foundation
import Testing

@testable import NowData

private struct User: Codable, Equatable {
    var name: String
}

private struct Incident: SysIdentifiableModel, Equatable {
    var sysId: String = ""
    var number: String
    var openedAt: Date?

    enum CodingKeys: String, CodingKey {
        case sysId
        case number
        case openedAt = "opened_at"
    }
}

private struct Account: SysIdentifiableModel, Equatable {
    var sysId: String = ""
    var name: String
    var manager: Manager

    struct Manager: Codable, Equatable {
        // swift-format-ignore: AlwaysUseLowerCamelCase
        // The JSON key on purpose: nested sys_id keys must stay untouched.
        var sys_id: String
    }
}

@Suite(.timeLimit(.minutes(5))) struct CoderTests {
    @Test func resultPathConstant() {
        #expect(Constants.resultPath == "result")
    }

    @Test func decodesAtResultPath() throws {
        let json = Data(#"{"result":[{"name":"Ash Williams"},{"name":"Laurie Strode"}]}"#.utf8)
        let users = try Coder.default.decode([User].self, from: json, path: "result")
        #expect(users == [User(name: "Ash Williams"), User(name: "Laurie Strode")])
    }

    @Test func decodesAtNestedDotPath() throws {
        let json = Data(#"{"result":{"user":{"photos":[{"name":"a"},{"name":"b"}]}}}"#.utf8)
        let photos = try Coder.default.decode([User].self, from: json, path: "result.user.photos")
        #expect(photos.map(\.name) == ["a", "b"])
    }

    @Test func emptyPathDecodesRoot() throws {
        let json = Data(#"{"name":"root"}"#.utf8)
        #expect(try Coder.default.decode(User.self, from: json, path: "").name == "root")
    }

    @Test func missingPathIsCannotDecodeModel() {
        let json = Data(#"{"result":{"name":"x"}}"#.utf8)
        #expect {
            try Coder.default.decode(User.self, from: json, path: "result.missing")
        } throws: { error in
            guard case NowDataError.cannotDecodeModel(.keyNotFound(let key, _)) = error else { return false }
            return key.stringValue == "missing"
        }
    }

    @Test func defaultCoderUsesTableDateFormat() throws {
        let json = Data(#"{"result":{"sys_id":"abc","number":"INC1","opened_at":"2016-01-19 04:52:04"}}"#.utf8)
        let incident = try Coder.default.decode(Incident.self, from: json)
        #expect(incident.sysId == "abc")
        #expect(incident.openedAt == Date(timeIntervalSince1970: 1_453_179_124))
        let encoded = try Coder.default.encode(incident)
        #expect(String(decoding: encoded, as: UTF8.self).contains(#""opened_at":"2016-01-19 04:52:04""#))
    }

    @Test func badDateIsAnError() {
        let json = Data(#"{"result":{"sys_id":"a","number":"1","opened_at":"19.01.2016"}}"#.utf8)
        #expect(throws: NowDataError.self) { try Coder.default.decode(Incident.self, from: json) }
    }

    @Test func sysIdMappingOnlyAtRecordLevel() throws {
        let json = Data(#"{"result":[{"sys_id":"r1","name":"Acme","manager":{"sys_id":"m1"}}]}"#.utf8)
        let accounts = try Coder.default.decode([Account].self, from: json)
        #expect(accounts == [Account(sysId: "r1", name: "Acme", manager: .init(sys_id: "m1"))])
    }

    @Test func customCoderKeepsItsDateStrategyAndGetsSysIdMapping() throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        let coder = Coder.custom(JSONEncoder(), decoder)
        let json = Data(#"{"result":{"sys_id":"abc","number":"INC1","opened_at":10}}"#.utf8)
        let incident = try coder.decode(Incident.self, from: json)
        #expect(incident.sysId == "abc")
        #expect(incident.openedAt == Date(timeIntervalSince1970: 10))
    }

    @Test func writeBodyDropsSysId() throws {
        let body = try SysIdKeyMapping.encodeForWrite(Incident(sysId: "zzz", number: "INC9"), coder: .default)
        let object = try JSONSerialization.jsonObject(with: body) as? [String: Any]
        #expect(object?["sysId"] == nil)
        #expect(object?["number"] as? String == "INC9")
    }

    @Test(arguments: [
        "1970-01-01 00:00:00", "2016-01-19 04:52:04", "2000-02-29 23:59:59", "1999-12-31 12:00:00",
        "2024-06-30 00:00:01", "1601-01-01 00:00:00", "9999-12-31 23:59:59", "2100-03-01 10:10:10",
    ])
    func fastDateParserAgreesWithFormatter(text: String) throws {
        let expected = try #require(DateFormatter.nonISO8601UTC.date(from: text))
        #expect(TableAPIDateFormat.formatterCompatibleDate(from: text) == expected)
        #expect(
            TableAPIDateFormat.formatterCompatibleString(from: expected)
                == DateFormatter.nonISO8601UTC.string(from: expected))
        let encoded = try Coder.default.encode(Incident(number: "INC1", openedAt: expected))
        #expect(String(decoding: encoded, as: UTF8.self).contains(#""opened_at":"\#(text)""#))
        #expect(try Coder.default.decode(Incident.self, from: encoded, path: "").openedAt == expected)
    }

    @Test(arguments: ["2023-02-29 00:00:00", "2023-13-01 00:00:00", "2023-01-01 24:00:00", "2023-01-01", ""])
    func fastDateParserRejectsInvalid(text: String) {
        #expect(TableAPIDateFormat.formatterCompatibleDate(from: text) == DateFormatter.nonISO8601UTC.date(from: text))
        #expect(TableAPIDateFormat.formatterCompatibleDate(from: text) == nil)
    }

    /// Text outside the exact `yyyy-MM-dd HH:mm:ss` shape still goes to the formatter's lenient parser,
    /// as it always did; text in that shape is judged by the strict parser alone.
    @Test(arguments: ["2024-1-5 9:03:00", "2024/01/05 09:03:00", "2024-01-05  09:03:00"])
    func offShapeTextFallsBackToTheFormatter(text: String) throws {
        let expected = try #require(DateFormatter.nonISO8601UTC.date(from: text))
        #expect(TableAPIDateFormat.date(from: text) == nil)
        #expect(TableAPIDateFormat.formatterCompatibleDate(from: text) == expected)
        let json = Data(#"{"result":{"sys_id":"abc","number":"INC1","opened_at":"\#(text)"}}"#.utf8)
        #expect(try Coder.default.decode(Incident.self, from: json).openedAt == expected)
    }

    /// Outside the years 1...9999 (and for non-finite instants) the Coder writes the formatter's text.
    @Test(arguments: [-62_135_596_801.0, 253_402_300_800.0, -1e12, .infinity, .nan])
    func outOfRangeYearsAreFormattedByTheFormatter(seconds: Double) {
        let date = Date(timeIntervalSince1970: seconds)
        #expect(
            TableAPIDateFormat.formatterCompatibleString(from: date) == DateFormatter.nonISO8601UTC.string(from: date))
    }

    @Test func formatterIsUTCAndPOSIX() {
        let formatter = DateFormatter.nonISO8601UTC
        #expect(formatter.dateFormat == "yyyy-MM-dd HH:mm:ss")
        #expect(formatter.timeZone?.secondsFromGMT() == 0)
        #expect(formatter.locale.identifier == "en_US_POSIX")
    }
}

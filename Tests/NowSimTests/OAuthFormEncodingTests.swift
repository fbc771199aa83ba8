import Foundation
import NowSim
import Testing

/// The tests of this file, in a suite so that a time limit bounds them (a hang fails by name).
@Suite(.timeLimit(.minutes(3))) struct OAuthFormEncodingTests {}

struct FormCase: Sendable, CustomTestStringConvertible {
    let input: String
    let expected: [[String]]
    var testDescription: String { "'\(input)'" }
}

extension OAuthFormEncodingTests {
    @Test(arguments: [
        FormCase(input: "", expected: []),
        FormCase(input: "a=1&b=2", expected: [["a", "1"], ["b", "2"]]),
        FormCase(input: "a+b=c+d", expected: [["a b", "c d"]]),
        FormCase(input: "%41%62=%e2%82%AC", expected: [["Ab", "€"]]),
        FormCase(input: "a=1&&b=2&", expected: [["a", "1"], ["b", "2"]]),
        FormCase(input: "flag", expected: [["flag", ""]]),
        FormCase(input: "a=", expected: [["a", ""]]),
        FormCase(input: "=v", expected: [["", "v"]]),
        FormCase(input: "a=1&a=2&a=3", expected: [["a", "1"], ["a", "2"], ["a", "3"]]),
        FormCase(input: "a=b=c", expected: [["a", "b=c"]]),
        FormCase(input: "p=%zz%4&q=100%", expected: [["p", "%zz%4"], ["q", "100%"]]),
        FormCase(input: "p=%2B%26%3D", expected: [["p", "+&="]]),
        FormCase(input: "bad=%E2%82", expected: [["bad", "\u{FFFD}"]]),
        FormCase(
            input: "grant_type=password&username=adm%C3%AFn&password=p%40ss+w0rd",
            expected: [
                ["grant_type", "password"], ["username", "admïn"], ["password", "p@ss w0rd"],
            ]),
    ])
    func formDecodingEdgeCases(_ testCase: FormCase) {
        let pairs = FormEncoding.decode(Array(testCase.input.utf8))
        #expect(pairs.map { [$0.name, $0.value] } == testCase.expected)
        // The String overload agrees with the byte overload.
        #expect(FormEncoding.decode(testCase.input).map { [$0.name, $0.value] } == testCase.expected)
    }

    @Test func formPercentDecodingKeepsPlusInPaths() {
        #expect(FormEncoding.percentDecode("/a+b/c%20d", plusAsSpace: false) == "/a+b/c d")
        #expect(FormEncoding.percentDecode("/a+b/c%20d", plusAsSpace: true) == "/a b/c d")
    }

    @Test func formEncodingRoundTrips() {
        let pairs: [(name: String, value: String)] = [
            (name: "client secret", value: "a&b=c+d/é 🎉~._-"), (name: "x", value: ""), (name: "x", value: "%"),
        ]
        let encoded = FormEncoding.encode(pairs)
        #expect(encoded == "client+secret=a%26b%3Dc%2Bd%2F%C3%A9+%F0%9F%8E%89~._-&x=&x=%25")
        #expect(FormEncoding.decode(encoded).map { [$0.name, $0.value] } == pairs.map { [$0.name, $0.value] })
    }
}

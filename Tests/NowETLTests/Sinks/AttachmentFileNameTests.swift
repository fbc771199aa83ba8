import Testing

@testable import NowETL

/// An attachment's `file_name` is text from the network: the name it gets on disk never leaves its
/// folder, never hides, never holds a control character and never exceeds 200 bytes.
@Suite(.timeLimit(.minutes(1))) struct AttachmentFileNameTests {
    @Test(arguments: [
        ("report.pdf", "report.pdf"),
        ("a/b/../c.txt", "a_b_.._c.txt"),
        ("..", "__"),
        (".", "_"),
        ("..\\evil", "___evil"),
        (".hidden", "_hidden"),
        ("", "attachment"),
        ("tab\there\u{7}bell\u{85}", "tab_here_bell_"),
        ("Grüße – ünïcödé 😀.png", "Grüße – ünïcödé 😀.png"),
        ("with spaces .txt", "with spaces .txt"),
        (".x.tmp-0123456789abcdef", "_x.tmp-0123456789abcdef"),
    ])
    func namesAreMadeSafe(_ name: String, _ safe: String) {
        #expect(AttachmentFileName.safe(name) == safe)
    }

    @Test func longNamesAreCutAtACharacterKeepingTheExtension() {
        let name = String(repeating: "ü", count: 300) + ".pdf"
        let safe = AttachmentFileName.safe(name)
        #expect(safe.utf8.count <= AttachmentFileName.maximumBytes)
        #expect(safe.hasSuffix("ü.pdf"))
        let noExtension = AttachmentFileName.safe(String(repeating: "x", count: 500))
        #expect(noExtension.utf8.count == AttachmentFileName.maximumBytes)
    }
}

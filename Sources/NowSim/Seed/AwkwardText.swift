/// Text that breaks naive exporters: delimiters, quotes, line breaks, markup, scripts, emoji,
/// spreadsheet formulas, stray whitespace and control characters.
///
/// The seeder puts these into a deterministic fraction of rows (see `Seeder`), so every export
/// format, query and renderer meets them on ordinary data, not only in hand-written tests.
enum AwkwardText: CaseIterable, Sendable {
    /// CSV delimiters: commas and semicolons.
    case commas
    /// Double quotes, doubled quotes and single quotes.
    case quotes
    /// CR/LF, LF and lone CR line breaks.
    case lineBreaks
    /// Tab characters.
    case tabs
    /// Markup characters `<`, `&`, `>`, entity look-alikes and the CDATA terminator `]]>`.
    case markup
    /// Japanese, Chinese, Russian, Arabic (right-to-left), Hindi, Greek, Hebrew and Thai.
    case nonLatin
    /// Emoji including ZWJ sequences, skin tones and flags.
    case emoji
    /// Leading `=`, `+`, `-`, `@` that spreadsheets execute as formulas.
    case formulaInjection
    /// Leading and trailing spaces, non-breaking and zero-width spaces.
    case whitespace
    /// Backslashes and escape-like sequences (`\n`, `\u0041`, `%20`).
    case backslashes
    /// SQL, LIKE wildcards and encoded-query syntax (`^`, `^OR`, `^NQ`, `=`).
    case querySyntax
    /// Combining characters, decomposed accents and astral-plane letters.
    case combining

    /// Short samples (fit a 160-character `short_description`).
    var samples: [String] {
        switch self {
        case .commas:
            return [
                "Outlook crashes, restarts, then crashes again",
                "Printer, scanner, and fax all offline; floor 3",
                "Cost center 4711, project X, budget \"Q3\" exceeded",
                "Smith, John reports: login fails, account locked, MFA prompt loops",
            ]
        case .quotes:
            return [
                "User says \"it just stopped\" after the \"upgrade\"",
                "Error: \"Access denied\" when opening 'Q3 Report.xlsx'",
                "Button labelled \"\"Save\"\" does nothing",
                "Can't find the \"Submit\" button on O'Reilly's form",
            ]
        case .lineBreaks:
            return [
                "First line\r\nSecond line\r\nThird line",
                "Line one\nLine two",
                "Old Mac line\rbreak only",
                "Trailing newline\n",
            ]
        case .tabs:
            return [
                "Column A\tColumn B\tColumn C",
                "\tIndented with a tab",
                "Value\t\twith two tabs",
            ]
        case .markup:
            return [
                "<script>alert('x')</script> & <b>bold</b>",
                "AT&T link down <urgent> & escalated",
                "CDATA end ]]> inside text",
                "Entity look-alikes: &amp; &lt; &#x41; &nbsp;",
                "a < b && c > d",
            ]
        case .nonLatin:
            return [
                "日本語のテキスト: プリンターが動かない",
                "Принтер не печатает, русский текст",
                "الطابعة لا تعمل - نص عربي",
                "प्रिंटर काम नहीं कर रहा है",
                "打印机无法工作",
                "Ο εκτυπωτής δεν λειτουργεί",
                "המדפסת לא עובדת",
                "เครื่องพิมพ์ไม่ทำงาน",
                "Mixed: Müller, Ørsted, Łódź, İstanbul, São Paulo",
            ]
        case .emoji:
            return [
                "Server down 🔥🔥🔥",
                "Developer 👩‍💻 and family 👨‍👩‍👧‍👦 both affected",
                "Offices in 🇩🇪 🇯🇵 🇺🇸 🇧🇷 report outage",
                "Thanks 👍🏽 resolved ✅",
                "Rainbow flag 🏳️‍🌈 and keycap 1️⃣ in subject",
            ]
        case .formulaInjection:
            return [
                "=HYPERLINK(\"http://example.invalid\",\"click\")",
                "+1 555 0100 calls drop",
                "-2+3 result wrong in report",
                "@SUM(A1:A10) shows in cell",
                "=1+1",
            ]
        case .whitespace:
            return [
                "Trailing spaces   ",
                "   Leading spaces",
                "Non\u{00A0}breaking\u{00A0}spaces",
                "Zero\u{200B}width\u{200B}space",
                "Double  spaced  words",
            ]
        case .backslashes:
            return [
                "Path C:\\Users\\admin\\AppData\\Local is full",
                "Literal \\n and \\t and \\u0041 in text",
                "URL with %20 and %2F and +plus+",
                "Regex ^\\d{3}-\\d{4}$ fails",
            ]
        case .querySyntax:
            return [
                "Robert'); DROP TABLE incident;--",
                "100% of users affected_now",
                "Caret ^ and ^OR and ^NQ in text",
                "active=true^priority=1 typed into subject",
                "Brackets [x] {y} (z) | pipe * star ? question",
            ]
        case .combining:
            return [
                "Cafe\u{0301} (decomposed) vs Café (composed)",
                "Zalgo t\u{0336}e\u{0337}x\u{0338}t",
                "Math 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 and 𝟙𝟚𝟛",
                "Hangul 한국어 and ﬁ ligature",
            ]
        }
    }

    /// Characters that XML 1.0 forbids, for the rare rows that must trip XML writers.
    static let xmlInvalidSamples = [
        "Log excerpt with vertical tab\u{0B}and unit separator\u{1F}end",
        "ANSI escape \u{1B}[31mred\u{1B}[0m in pasted log",
        "Form feed\u{0C}page break and backspace\u{08}",
        "Bell\u{07} and record separator\u{1E} from a terminal",
    ]
}

import Foundation

/// Pre-rendered text pools for the hot seeding loops: subjects, descriptions and plans are built once
/// per run from `SeedVocabulary`, so a row picks a ready `String` instead of formatting one.
struct SeedTexts {
    /// An incident subject with the category and subcategory it belongs to.
    struct Subject {
        var text: String
        var category: String
        var subcategory: String
    }

    let incidentSubjects: [Subject]
    let descriptions: [String]
    let problemSubjects: [String]
    let changeSubjects: [String]
    let plans: [String]

    init(seedValue: UInt64) {
        var random = SeedRandom(seed: seedValue, stream: "texts")
        incidentSubjects = (0..<2048).map { _ in
            let template = random.pick(SeedVocabulary.subjects)
            return Subject(
                text: Self.fill(template.text, &random), category: template.category,
                subcategory: template.subcategory)
        }
        descriptions = (0..<1024).map { _ in Self.paragraph(&random) }
        problemSubjects = (0..<256).map { _ in
            random.pick(SeedVocabulary.problemSubjects) + (random.percent(30) ? " (" + Self.host(&random) + ")" : "")
        }
        changeSubjects = (0..<512).map { _ in Self.fill(random.pick(SeedVocabulary.changeSubjects), &random) }
        plans = (0..<256).map { _ in
            let steps = random.between(3...7)
            var lines: [String] = []
            for step in 1...steps { lines.append("\(step). \(random.pick(SeedVocabulary.planSteps))") }
            return lines.joined(separator: random.percent(20) ? "\r\n" : "\n")
        }
    }

    /// A description paragraph of one to five sentences, sometimes with line breaks or steps.
    static func paragraph(_ random: inout SeedRandom) -> String {
        var text = ""
        let sentences = random.between(1...5)
        for index in 0..<sentences {
            if index > 0 { text += random.percent(20) ? "\n\n" : " " }
            text += random.pick(SeedVocabulary.sentences)
        }
        if random.percent(10) {
            text += "\n\nSteps to reproduce:\n1. Open \(random.pick(SeedVocabulary.apps))\n2. "
            text += "Log in to \(random.pick(SeedVocabulary.systems))\n3. Observe the error"
        }
        return text
    }

    /// `template` with `{system}`, `{app}`, `{device}`, `{host}` and `{n}` filled in.
    static func fill(_ template: String, _ random: inout SeedRandom) -> String {
        var text = template
        if text.contains("{system}") {
            text = text.replacingOccurrences(of: "{system}", with: random.pick(SeedVocabulary.systems))
        }
        if text.contains("{app}") {
            text = text.replacingOccurrences(of: "{app}", with: random.pick(SeedVocabulary.apps))
        }
        if text.contains("{device}") {
            text = text.replacingOccurrences(of: "{device}", with: random.pick(SeedVocabulary.devices))
        }
        if text.contains("{host}") { text = text.replacingOccurrences(of: "{host}", with: host(&random)) }
        if text.contains("{n}") { text = text.replacingOccurrences(of: "{n}", with: String(random.between(1...12))) }
        return text
    }

    /// A server host name such as `lnux214` or `sql-prod-03`.
    static func host(_ random: inout SeedRandom) -> String {
        switch random.below(4) {
        case 0: return "lnux\(random.between(100...999))"
        case 1: return "win-app-\(random.between(10...99))"
        case 2: return "sql-prod-0\(random.between(1...9))"
        default: return "ora\(random.between(10...99))db"
        }
    }

    /// A 20–60 KB description: numbered log-like lines, some of them awkward.
    func longDescription(_ random: inout SeedRandom) -> String {
        let target = 20_000 + random.below(40_001)
        var text = "Full log attached by the caller:\n"
        text.reserveCapacity(target + 256)
        var line = 1
        while text.utf8.count < target {
            text += "[\(line)] "
            if random.percent(10) {
                let category = random.pick(AwkwardText.allCases)
                text += random.pick(category.samples)
            } else {
                text += random.pick(SeedVocabulary.sentences)
            }
            text += random.percent(5) ? "\r\n" : "\n"
            line += 1
        }
        return text
    }

    /// Awkward sample number `index`: categories rotate fastest, then the samples within each, so
    /// any run of `categories × longest sample list` consecutive indexes contains every sample.
    static func awkward(_ index: Int) -> String {
        let categories = AwkwardText.allCases
        let samples = categories[index % categories.count].samples
        return samples[(index / categories.count) % samples.count]
    }
}

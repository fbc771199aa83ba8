/// A position in the configuration tree (`tables[0].filter`), for messages.
struct ConfigPath: Hashable, CustomStringConvertible {
    /// One step: a mapping key or a sequence index.
    enum Component: Hashable {
        case key(String)
        case index(Int)
    }

    var components: [Component]

    init(_ components: [Component] = []) {
        self.components = components
    }

    /// The path of a coding path; keys with an integer value are sequence indices.
    init(codingPath: [any CodingKey]) {
        components = codingPath.map { key in
            if let index = key.intValue { return .index(index) }
            return .key(key.stringValue)
        }
    }

    var isRoot: Bool { components.isEmpty }

    /// `source.auth.basic`, `tables[0].columns[2]`; empty at the root.
    var description: String {
        var text = ""
        for component in components {
            switch component {
            case .key(let key):
                if !text.isEmpty { text += "." }
                text += key
            case .index(let index):
                text += "[\(index)]"
            }
        }
        return text
    }

    /// `in tables[0]`, or `at the top level` for the root.
    var inPhrase: String { isRoot ? "at the top level" : "in \(description)" }

    /// `for source.page_size`, or `at the top level` for the root.
    var forPhrase: String { isRoot ? "at the top level" : "for \(description)" }

    /// This path extended by one component.
    func appending(_ component: Component) -> ConfigPath {
        ConfigPath(components + [component])
    }
}

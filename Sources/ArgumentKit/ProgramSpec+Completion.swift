extension ProgramSpec {
    /// The shells a completion script is written for.
    public enum Shell: String, Sendable, CaseIterable {
        /// bash, with `complete -F`.
        case bash
        /// zsh, a `#compdef` function using `_arguments`.
        case zsh
        /// fish, `complete -c` lines.
        case fish
    }

    /// The completion script for `shell`: subcommands, each command's options, choice values and file
    /// names where a value or argument is a path.
    public func completionScript(for shell: Shell) -> String {
        switch shell {
        case .bash: return bashCompletion()
        case .zsh: return zshCompletion()
        case .fish: return fishCompletion()
        }
    }

    /// Every command with its path, the program's first.
    var allCommands: [(path: [String], command: CommandSpec)] {
        [([], root)] + root.descendants
    }

    /// A shell identifier for the program's name (`nowetl` → `nowetl`, `my-tool` → `my_tool`).
    var identifier: String {
        String(name.map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }

    /// The first clause of a help text (up to `; ` or `. `), at most 60 characters, for a completion menu.
    static func summary(_ help: String) -> String {
        var text = Substring(help)
        for separator in ["; ", ". "] {
            if let range = text.range(of: separator) { text = text[..<range.lowerBound] }
        }
        return text.count > 60 ? String(text.prefix(59)) + "…" : String(text)
    }

    /// `'text'` for a POSIX shell.
    static func singleQuoted(_ text: String) -> String {
        "'" + text.replacingAll("'", with: "'\\''") + "'"
    }
}

extension String {
    /// `self` with every `target` replaced (Foundation-free).
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = Substring(self)
        while let range = rest.range(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}

extension Substring {
    /// The first range of `target` (Foundation-free).
    func range(of target: String) -> Range<Index>? {
        guard !target.isEmpty else { return nil }
        var start = startIndex
        while start < endIndex {
            if self[start...].hasPrefix(target) {
                return start..<index(start, offsetBy: target.count)
            }
            start = index(after: start)
        }
        return nil
    }
}

extension CommandSpec {
    /// `PROGRAM completion SHELL`: the command every program built on these tables has, printing
    /// ``ProgramSpec/completionScript(for:)``.
    public static func completion(program name: String) -> CommandSpec {
        CommandSpec(
            "completion", abstract: "print the shell completion script for bash, zsh or fish",
            discussion: """
                bash: source <(\(name) completion bash), or save it as \
                /usr/share/bash-completion/completions/\(name). zsh: save it as _\(name) in a directory of \
                $fpath. fish: save it as ~/.config/fish/completions/\(name).fish.
                """,
            arguments: [
                ArgumentSpec("SHELL", help: "bash, zsh or fish", choices: ProgramSpec.Shell.allCases.map(\.rawValue))
            ])
    }

    /// `PROGRAM manpage`: prints the program's man page (``ProgramSpec/manPage()``).
    public static func manpage(program name: String) -> CommandSpec {
        CommandSpec(
            "manpage", abstract: "print the man page \(name)(1) in roff",
            discussion: "Read it with: \(name) manpage | man -l -")
    }
}

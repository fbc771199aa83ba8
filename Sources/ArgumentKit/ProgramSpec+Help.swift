extension ProgramSpec {
    /// The help of the command at `path` (`--help`): its usage, arguments, options and discussion; the
    /// program's own (empty `path`) is the overview: every command's usage and summary, and the exit codes.
    public func help(for path: [String]) -> String {
        guard let command = command(at: path) else { return help(for: []) }
        var lines = ["\(fullName(path)) — \(command.abstract)", "", "USAGE:"]
        if path.isEmpty {
            for (subpath, subcommand) in root.descendants where subcommand.subcommands.isEmpty {
                lines += synopsis(of: subcommand, at: subpath)
            }
            lines += synopsis(of: root, at: [])
        } else {
            lines += shortUsageLines(for: path)
        }
        if !command.subcommands.isEmpty {
            lines += ["", "COMMANDS:"]
            let width = (command.subcommands.map(\.name.count).max() ?? 0) + 4
            for subcommand in command.subcommands {
                let label = "  " + subcommand.name + String(repeating: " ", count: width - subcommand.name.count - 2)
                lines += TextLayout.wrap(
                    subcommand.abstract, indent: String(repeating: " ", count: width), firstIndent: label)
            }
        }
        if !command.arguments.isEmpty {
            lines += ["", "ARGUMENTS:"]
            for argument in command.arguments { lines += TextLayout.row(argument.synopsis, argument.help) }
        }
        lines += ["", "OPTIONS:"]
        for option in command.options { lines += TextLayout.row(option.label, option.help) }
        lines += TextLayout.row("-h, --help", "show this help")
        for paragraph in TextLayout.paragraphs(command.discussion) {
            lines.append("")
            lines += paragraph.isVerbatim ? [paragraph.text] : TextLayout.wrap(paragraph.text, indent: "  ")
        }
        if path.isEmpty {
            lines += ["", "See '\(name) help COMMAND' or '\(name) COMMAND --help' for a command's options.", ""]
            lines.append(exitCodesHelp)
        } else if !command.subcommands.isEmpty {
            lines += ["", "See '\(fullName(path)) COMMAND --help' for a command's options."]
        }
        return lines.joined(separator: "\n")
    }

    /// What a usage error prints after its one line: the command's synopsis and where its help is.
    public func shortUsage(for path: [String]) -> String {
        (["USAGE:"] + shortUsageLines(for: path) + ["See '\(fullName(path)) --help'."]).joined(separator: "\n")
    }

    /// The usage error as printed: `nowetl run: why`, a blank line, then ``shortUsage(for:)``.
    public func errorText(for error: ArgumentError) -> String {
        let path = command(at: error.path) == nil ? [] : error.path
        return "\(fullName(path)): \(error.message)\n\n\(shortUsage(for: path))"
    }

    /// The synopsis lines of the command at `path`: its own, its subcommands' when it has (leaf) ones,
    /// the list of its subcommands otherwise.
    func shortUsageLines(for path: [String]) -> [String] {
        guard let command = command(at: path) else { return [] }
        if command.subcommands.isEmpty { return synopsis(of: command, at: path) }
        if command.subcommands.allSatisfy({ $0.subcommands.isEmpty }), !path.isEmpty {
            return command.subcommands.flatMap { synopsis(of: $0, at: path + [$0.name]) }
        }
        let names = command.subcommands.map(\.name).joined(separator: "|")
        return TextLayout.wrap("\(fullName(path)) \(names) …", indent: "      ", firstIndent: "  ")
            + synopsis(of: command, at: path)
    }

    /// One command's synopsis, wrapped with its continuation lines under the first argument:
    /// `nowetl run PIPELINE [--table T]… …`; for a command with subcommands its own options, as
    /// `nowetl --help | --version`.
    func synopsis(of command: CommandSpec, at path: [String]) -> [String] {
        let head = "  " + fullName(path) + " "
        if !command.subcommands.isEmpty {
            guard !command.options.isEmpty else { return [] }
            return [head + (["--help"] + command.options.map(\.name)).joined(separator: " | ")]
        }
        let words = command.arguments.map(\.synopsis) + command.options.map(\.synopsis)
        var lines: [String] = []
        var line = head
        let indent = String(repeating: " ", count: head.count)
        for word in words {
            if line.count > indent.count, line.count + 1 + word.count > TextLayout.width {
                lines.append(line)
                line = indent
            }
            line += (line.count > indent.count ? " " : "") + word
        }
        lines.append(line.count > indent.count ? line : String(line.dropLast()))
        return lines
    }
}

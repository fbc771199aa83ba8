import Foundation

/// Checks of generated shell completion scripts and man pages by the real tools: bash, zsh, fish,
/// groff and man, each run through ``Subprocess``.
public struct ShellScripts: Sendable {
    /// A temporary folder holding the script or page under test (and the files a completion may offer).
    public let directory: URL

    /// A fresh temporary folder.
    public init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("shell-scripts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// Removes the folder.
    public func remove() {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Writes `text` to `name` in the folder and returns its path.
    @discardableResult
    public func write(_ text: String, to name: String) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Runs `script` with `bash -c` in the folder.
    public func bash(_ script: String) async throws -> SubprocessResult {
        try await Subprocess.run(
            Subprocess.tool("bash"), ["--norc", "--noprofile", "-c", script], directory: directory)
    }

    /// What the bash completion function `function` (from the script at `path`) offers for `words`, the
    /// last one being completed: `COMPREPLY`, one element a line.
    public func bashCompletions(script path: String, function: String, words: [String]) async throws -> [String] {
        let quoted = words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        let result = try await bash(
            """
            source '\(path)' || exit 3
            COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); COMP_LINE="${COMP_WORDS[*]}"
            COMP_POINT=${#COMP_LINE}
            \(function) || exit 4
            printf '%s\\n' "${COMPREPLY[@]}"
            """)
        guard result.status == 0 else {
            throw SubprocessError(
                command: result.command, problem: "exited \(result.status)", stdout: result.stdoutText,
                stderr: result.stderrText)
        }
        return result.stdoutText.split(separator: "\n").map(String.init)
    }

    /// `zsh -n path`: whether zsh parses the script (status and messages).
    public func zshParses(_ path: String) async throws -> SubprocessResult {
        try await Subprocess.run(Subprocess.tool("zsh"), ["-n", path], directory: directory)
    }

    /// `fish -n path`: whether fish parses the script.
    public func fishParses(_ path: String) async throws -> SubprocessResult {
        try await Subprocess.run(Subprocess.tool("fish"), ["--no-config", "-n", path], directory: directory)
    }

    /// What fish offers for the command line `line` after sourcing the script at `path`
    /// (`complete -C`): the candidates without their descriptions.
    public func fishCompletions(script path: String, line: String) async throws -> [String] {
        let quoted = "'" + line.replacingOccurrences(of: "'", with: "\\'") + "'"
        let result = try await Subprocess.run(
            Subprocess.tool("fish"), ["--no-config", "-c", "source '\(path)'; and complete -C \(quoted)"],
            directory: directory)
        guard result.status == 0 else {
            throw SubprocessError(
                command: result.command, problem: "exited \(result.status)", stdout: result.stdoutText,
                stderr: result.stderrText)
        }
        return result.stdoutText.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
    }

    /// `groff -man -Tutf8 -ww -z path`: every warning groff has about the page (stderr) and its status.
    public func groffWarnings(_ path: String) async throws -> SubprocessResult {
        try await Subprocess.run(Subprocess.tool("groff"), ["-man", "-Tutf8", "-ww", "-z", path], directory: directory)
    }

    /// `man -l path` as a user reads it (no pager, 200 columns, plain text).
    public func manRendering(_ path: String) async throws -> SubprocessResult {
        try await Subprocess.run(
            Subprocess.tool("man"), ["-l", path], directory: directory,
            environment: ["MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "200"])
    }
}

import Foundation
import NowData
import Synchronization

/// Standard error as `nowetl` uses it: whole log lines, and on a terminal one status line at the
/// bottom (the live progress) that log lines scroll past.
///
/// Every write happens under one lock, so lines from concurrent tasks never interleave, and a log
/// line first erases the status line (`\r` + erase to end of line), then redraws it below itself.
public final class Console: Sendable {
    private let status = Mutex<String?>(nil)
    private let write: @Sendable (String) -> Void

    /// Creates a console that hands its text to `write` (one call per line or redraw).
    public init(write: @escaping @Sendable (String) -> Void) {
        self.write = write
    }

    /// A console on `stream`, whose failed writes are dropped and counted (see ``StandardStream``).
    public convenience init(stream: StandardStream) {
        self.init { text in stream.write(text) }
    }

    /// A console on the process's standard error.
    public static func standardError() -> Console {
        Console(stream: .error)
    }

    /// Whether the process's standard error is a terminal (`isatty(2)`).
    public static var standardErrorIsTerminal: Bool { isatty(2) == 1 }

    /// The escape sequence that returns to the start of the line and erases it.
    static let eraseLine = "\r\u{1B}[K"

    /// Writes `line` and a line break, keeping the status line (if any) below it.
    ///
    /// Control characters in `line` are written as escapes (``PrintableText``; line breaks stay): a
    /// line may quote an instance's error text, and no escape sequence of the instance's may reach the
    /// terminal.
    public func writeLine(_ line: String) {
        let line = PrintableText.escaped(line, keepingLineBreaks: true)
        status.withLock { current in
            if let current {
                write(Self.eraseLine + line + "\n" + current)
            } else {
                write(line + "\n")
            }
        }
    }

    /// Replaces the status line with `text`, or erases it for `nil`.
    public func setStatus(_ text: String?) {
        let text = text.map { PrintableText.escaped($0) }
        status.withLock { current in
            guard current != text else { return }
            if let text {
                write(Self.eraseLine + text)
            } else if current != nil {
                write(Self.eraseLine)
            }
            current = text
        }
    }
}

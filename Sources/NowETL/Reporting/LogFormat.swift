/// How log lines look: `--log-format text|json`.
public enum LogFormat: String, Sendable, Hashable, CaseIterable {
    /// `time=… level=info msg="table finished" table=incident rows=2000` — for people and grep.
    case text
    /// One JSON object per line, for log collectors.
    case json
}

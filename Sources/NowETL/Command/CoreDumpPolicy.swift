import CProcess
import Foundation

/// Whether a crash of `nowetl` may leave a core file.
///
/// A core file holds the process's memory: the instance password, OAuth tokens, database passwords and
/// the rows being exported. `nowetl` therefore turns core dumps off when it starts (`RLIMIT_CORE` 0 and
/// `PR_SET_DUMPABLE` 0, which also keeps other processes of the same user from attaching to it), unless
/// the environment asks for them with `NOWETL_CORE_DUMPS=1` — for a developer chasing a crash on a
/// machine whose core files are as protected as the secrets.
public enum CoreDumpPolicy {
    /// The environment variable that keeps core dumps as the system has them.
    public static let environmentVariable = "NOWETL_CORE_DUMPS"

    /// Turns core dumps off unless `environment` asks for them.
    /// - Returns: a warning to print when they could not be turned off, else `nil`.
    public static func apply(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        guard environment[environmentVariable] != "1" else { return nil }
        guard nowetl_disable_core_dumps() == 0 else {
            return "nowetl: warning: cannot turn core dumps off (\(String(cString: strerror(errno)))): a crash "
                + "may write credentials to a core file"
        }
        return nil
    }

    /// Whether the process is dumpable now (`PR_GET_DUMPABLE`); `nil` when that cannot be read.
    public static var isDumpable: Bool? {
        let value = nowetl_is_dumpable()
        return value < 0 ? nil : value != 0
    }
}

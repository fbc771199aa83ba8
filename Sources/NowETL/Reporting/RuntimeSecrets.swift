import Synchronization

/// Secrets that only appear while a process runs — OAuth access and refresh tokens — collected so that
/// every ``RunLogger`` redacts them as it redacts the configured passwords.
///
/// One set per process: a token obtained by any service of the run (the source, a target instance)
/// is a credential for all of its logs. NowData hands each new token over through
/// `NowServiceConfiguration.credentialObserver`, which ``InstanceConnection`` points here. The set
/// only grows (a refreshed token does not make the old one harmless in a log), by at most a few
/// values per hour of a run.
public enum RuntimeSecrets {
    private static let values = Mutex<[String]>([])

    /// Adds `secret` (ignored when shorter than ``RunLogger/shortestRedactedSecret`` or known already).
    public static func add(_ secret: String) {
        guard secret.count >= RunLogger.shortestRedactedSecret else { return }
        values.withLock { values in
            guard !values.contains(secret) else { return }
            values.append(secret)
            values.sort { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
        }
    }

    /// The secrets collected so far, longest first.
    public static var all: [String] { values.withLock { $0 } }
}

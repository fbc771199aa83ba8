import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The smallest equivalent of the Mobile SDK's core framework entry point (`NowSDK`), so that the
/// documented `NowTableService.init` example compiles and runs as written.
///
/// On iOS the core framework is configured once per app launch with an authorization provider
/// (JWT tokens) and a permission delegate, and feature services get their configuration and HTTP
/// stack from it. There is no such framework on Linux: this type keeps only what NowData's documented
/// calls need — the ``Authentication`` every service configuration gets, and the core service — and
/// lives in NowData, so `import NowData` is enough (drop the `import NowSDK` line of ported code).
/// Nothing else of the core framework (logging, permissions, `NowSDKError`) is provided.
///
/// ```swift
/// NowSDK.configure(with: NowSDKConfiguration(authentication: .basic(username: "admin", password: secret)))
///
/// guard let coreService = NowSDK.core() else {
///     // Error with NowServiceError.sdkNotConfigured
///     return
/// }
///
/// guard
///     let instanceUrl = URL(string: "https://sample.service-now.com"),
///     let serviceConfig = NowSDK.makeServiceConfiguration(for: instanceUrl)
/// else {
///     // Could not create service -- NowServiceError.serviceConfigurationInvalid
///     return
/// }
/// let tableService = NowTableService(configuration: serviceConfig, coreServiceProvider: coreService)
/// ```
///
/// Services made without it — `NowTableService(configuration:)` with a configuration of your own — work
/// the same; the SDK state is one process-wide value.
public enum NowSDK {
    private static let state = Mutex<NowSDKConfiguration?>(nil)

    /// Configures the SDK for the process; a later call replaces the configuration.
    public static func configure(with configuration: NowSDKConfiguration) {
        state.withLock { $0 = configuration }
    }

    /// Forgets the configuration: ``core()`` and ``makeServiceConfiguration(for:)`` return `nil` again.
    /// Services made before keep working.
    public static func logout() {
        state.withLock { $0 = nil }
    }

    /// The core service (the HTTP stack) to give feature services, or `nil` when the SDK is not
    /// configured (the SDK's `NowServiceError.sdkNotConfigured`).
    ///
    /// The configuration's ``NowSDKConfiguration/coreServiceProvider``, else the default libcurl stack:
    /// a service given it builds its own connection pool from its own ``NowServiceConfiguration`` (TLS,
    /// proxy, timeouts), exactly as with `coreServiceProvider: nil`.
    public static func core() -> (any NowCoreServiceProvider)? {
        guard let configuration = state.withLock({ $0 }) else { return nil }
        return configuration.coreServiceProvider ?? DefaultCoreService()
    }

    /// A service configuration for the instance at `instanceUrl` with the SDK's authentication and
    /// NowData's defaults for everything else (change them on the returned value), or `nil` when the SDK
    /// is not configured or the URL is not one a service may use (the SDK's
    /// `NowServiceError.serviceConfigurationInvalid`): not `http`/`https` with a host, or plain `http` to a
    /// host other than loopback without ``NowSDKConfiguration/allowsInsecureHTTP``.
    public static func makeServiceConfiguration(for instanceUrl: URL) -> NowServiceConfiguration? {
        guard let sdk = state.withLock({ $0 }) else { return nil }
        let configuration = NowServiceConfiguration(
            instanceURL: instanceUrl, authentication: sdk.authentication, allowsInsecureHTTP: sdk.allowsInsecureHTTP)
        do throws(NowDataError) {
            try configuration.validate()
        } catch {
            return nil
        }
        return configuration
    }
}

/// What ``NowSDK/configure(with:)`` takes: the Linux counterpart of the SDK's `NowSDKConfiguration`,
/// whose authorization provider becomes an ``Authentication`` (use ``Authentication/bearerToken(_:)``
/// for tokens from a provider of your own).
public struct NowSDKConfiguration: Sendable {
    /// How the services' requests authenticate.
    public var authentication: Authentication
    /// The HTTP stack ``NowSDK/core()`` hands out; `nil` for NowData's default (libcurl).
    public var coreServiceProvider: (any NowCoreServiceProviding)?
    /// Whether service configurations may use plain `http` to hosts other than loopback.
    public var allowsInsecureHTTP: Bool

    /// Creates a configuration.
    public init(
        authentication: Authentication, coreServiceProvider: (any NowCoreServiceProviding)? = nil,
        allowsInsecureHTTP: Bool = false
    ) {
        self.authentication = authentication
        self.coreServiceProvider = coreServiceProvider
        self.allowsInsecureHTTP = allowsInsecureHTTP
    }
}

/// The core service ``NowSDK/core()`` returns when no provider was configured: a marker that a
/// ``NowTableService`` replaces by its own libcurl stack (``CurlCoreService``) made from its
/// configuration, as if it had been given no provider.
///
/// Used directly, outside a service, it sends through one process-wide libcurl stack with NowData's
/// default transfer settings.
struct DefaultCoreService: NowCoreServiceProviding {
    private static let shared = CurlCoreService(
        configuration: NowServiceConfiguration(instanceURL: URL(fileURLWithPath: "/"), authentication: .none))

    func data(for request: URLRequest) async throws -> (Data, URLResponse) {
        try await Self.shared.data(for: request)
    }
}

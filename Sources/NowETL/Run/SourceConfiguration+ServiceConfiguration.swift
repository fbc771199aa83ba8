import NowData

extension SourceConfiguration {
    /// NowData's configuration for this source (``InstanceConnection/serviceConfiguration(maximumConnectionsPerHost:eventHandler:)``),
    /// with transport events (retries, slow requests) going to `eventHandler`.
    func serviceConfiguration(
        maximumConnectionsPerHost: Int, eventHandler: (@Sendable (TransportEvent) -> Void)?
    ) -> NowServiceConfiguration {
        connection.serviceConfiguration(
            maximumConnectionsPerHost: maximumConnectionsPerHost, eventHandler: eventHandler)
    }
}

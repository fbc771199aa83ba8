import NowData

extension SourceConfiguration {
    /// NowData's configuration for this source (``InstanceConnection/serviceConfiguration(maximumConnectionsPerHost:eventHandler:)``),
    /// with transport events (retries, slow requests) going to `eventHandler` and answers limited to
    /// ``maximumResponseBytes``.
    func serviceConfiguration(
        maximumConnectionsPerHost: Int, eventHandler: (@Sendable (TransportEvent) -> Void)?
    ) -> NowServiceConfiguration {
        var service = connection.serviceConfiguration(
            maximumConnectionsPerHost: maximumConnectionsPerHost, eventHandler: eventHandler)
        service.maximumResponseBytes = maximumResponseBytes
        return service
    }
}

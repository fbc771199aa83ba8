import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The session delegate of ``URLSessionCoreService``: routes each task's events to its
/// ``URLSessionExchange`` and decides challenges and redirects.
///
/// - Authentication challenges (a 401 with `WWW-Authenticate`, which ServiceNow sends with every 401)
///   are cancelled and the 401 is handed to the transport as the answer. Default handling is never
///   used: swift-corelibs-foundation leaves the task pending forever when it has no stored credential,
///   and the transport already sent the credentials it has.
/// - Redirects are followed only when ``RedirectRule`` allows them (same host); otherwise the 3xx
///   answer is returned as it is.
final class URLSessionEventRouter: NSObject, URLSessionDataDelegate, Sendable {
    private let exchanges = Mutex<[Int: URLSessionExchange]>([:])

    /// Routes the events of `task` to `exchange` until ``unregister(_:)``.
    func register(_ exchange: URLSessionExchange, for taskIdentifier: Int) {
        exchanges.withLock { $0[taskIdentifier] = exchange }
    }

    /// Stops routing the events of a task.
    func unregister(_ taskIdentifier: Int) {
        _ = exchanges.withLock { $0.removeValue(forKey: taskIdentifier) }
    }

    private func exchange(for task: URLSessionTask) -> URLSessionExchange? {
        exchanges.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        exchange(for: dataTask)?.received(response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        exchange(for: dataTask)?.received(data)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge,
        completionHandler: @escaping (URLSession.AuthChallengeDisposition, URLCredential?) -> Void
    ) {
        #if !canImport(FoundationNetworking)
            // Darwin asks about TLS trust here too; leave that to the system.
            if challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust {
                completionHandler(.performDefaultHandling, nil)
                return
            }
        #endif
        exchange(for: task)?.challenged(by: challenge.failureResponse)
        completionHandler(.cancelAuthenticationChallenge, nil)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        guard let source = response.url ?? task.currentRequest?.url, let target = request.url,
            RedirectRule.allows(from: source, to: target)
        else {
            completionHandler(nil)
            return
        }
        exchange(for: task)?.redirected()
        completionHandler(request)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        exchange(for: task)?.completed(task: task, error: error)
    }
}

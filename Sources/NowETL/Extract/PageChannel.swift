import Foundation

/// A bounded single-producer, single-consumer queue of pages between a partition's fetch task and the
/// writer: a producer that runs `capacity` pages ahead waits, so memory stays flat however far the
/// writer lags behind.
final class PageChannel<Element: Sendable>: @unchecked Sendable {
    // Everything below is guarded by `lock`.
    private let lock = NSLock()
    private let capacity: Int
    private var buffer: [Element] = []
    private var end: Result<Void, any Error>?
    private var closed = false
    private var waitingSender: CheckedContinuation<Void, Never>?
    private var waitingReceiver: CheckedContinuation<Void, Never>?

    /// Creates a channel holding at most `capacity` elements.
    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Appends an element, waiting while the channel is full.
    ///
    /// - Throws: `CancellationError` when the consumer closed the channel.
    func send(_ element: Element) async throws {
        while true {
            let (sent, receiver): (Bool?, CheckedContinuation<Void, Never>?) = lock.withLock {
                if closed { return (nil, nil) }
                guard buffer.count < capacity else { return (false, nil) }
                buffer.append(element)
                defer { waitingReceiver = nil }
                return (true, waitingReceiver)
            }
            guard let sent else { throw CancellationError() }
            if sent {
                receiver?.resume()
                return
            }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = lock.withLock {
                    if closed || buffer.count < capacity { return true }
                    waitingSender = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
    }

    /// Ends the stream after the buffered elements, with an error when the producer failed.
    func finish(throwing error: (any Error)? = nil) {
        let receiver: CheckedContinuation<Void, Never>? = lock.withLock {
            if end == nil { end = error.map { .failure($0) } ?? .success(()) }
            defer { waitingReceiver = nil }
            return waitingReceiver
        }
        receiver?.resume()
    }

    /// The next element, or `nil` at the end of the stream.
    ///
    /// - Throws: the producer's error, once the elements sent before it were received.
    func receive() async throws -> Element? {
        while true {
            let step: Step = lock.withLock {
                if !buffer.isEmpty {
                    let element = buffer.removeFirst()
                    defer { waitingSender = nil }
                    return .element(element, waitingSender)
                }
                if let end { return .end(end) }
                return .wait
            }
            switch step {
            case .element(let element, let sender):
                sender?.resume()
                return element
            case .end(let result):
                try result.get()
                return nil
            case .wait:
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let resumeNow = lock.withLock {
                        if !buffer.isEmpty || end != nil { return true }
                        waitingReceiver = continuation
                        return false
                    }
                    if resumeNow { continuation.resume() }
                }
            }
        }
    }

    private enum Step {
        case element(Element, CheckedContinuation<Void, Never>?)
        case end(Result<Void, any Error>)
        case wait
    }

    /// The consumer stops: a waiting or later ``send(_:)`` throws, buffered elements are dropped.
    func close() {
        let sender: CheckedContinuation<Void, Never>? = lock.withLock {
            closed = true
            buffer.removeAll()
            defer { waitingSender = nil }
            return waitingSender
        }
        sender?.resume()
    }
}

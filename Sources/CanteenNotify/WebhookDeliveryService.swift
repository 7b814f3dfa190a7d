import AsyncHTTPClient
import CanteenCore
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ServiceLifecycle
import Synchronization

/// Delivers the order-event outbox to the webhook endpoints: signed, retried with backoff and
/// jitter for the retry period, in order per order and endpoint, at least once.
///
/// It runs in rounds. A round records the attempts that finished, turns new events into
/// deliveries and takes the due ones, all in one transaction of the repository; the taken ones
/// are posted concurrently. A round runs when this process commits an event, when an attempt
/// finishes, when a retry falls due, and every `pollInterval` (events committed by another
/// process). Everything it knows is in the database, so a restart, even after SIGKILL in the
/// middle of a request, resumes where the outbox stands: an attempt whose result was not
/// recorded is made again once its lease ends.
public final class WebhookDeliveryService: Service, Sendable {
    /// Renders an event's JSON body (after its commit, outside the database writer).
    public typealias Renderer = @Sendable (OrderEvent) async throws -> [UInt8]

    private let webhooks: any WebhookRepository
    private let render: Renderer
    private let settings: WebhookDeliverySettings
    private let logger: Logger
    private let clock: @Sendable () -> Date
    private let doorbell = Doorbell()
    private let finished = Mutex<[WebhookAttemptResult]>([])
    private let bodies = Mutex<[Int64: [UInt8]]>([:])
    private let inFlight = Atomic<Int>(0)

    /// - Parameters:
    ///   - events: this process's order events ring the service's doorbell as they commit.
    ///   - clock: wall time of attempts and due dates (the real one outside tests).
    public init(webhooks: any WebhookRepository, events: any OrderEventRepository, render: @escaping Renderer,
                settings: WebhookDeliverySettings = WebhookDeliverySettings(),
                logger: Logger = Logger(label: "canteen.webhooks"), clock: @escaping @Sendable () -> Date = Date.init) {
        self.webhooks = webhooks
        self.render = render
        self.settings = settings
        self.logger = logger
        self.clock = clock
        events.onOrderEvents { [doorbell] _ in doorbell.ring() }
    }

    public func run() async throws {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        let timeout = TimeAmount.nanoseconds(Int64(settings.timeout.seconds * 1e9))
        configuration.timeout = .init(connect: timeout, read: timeout)
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = settings.maxConcurrentDeliveries
        // Each attempt's client span is DeliveryTracing's (by today's HTTP conventions), not the client's own.
        configuration.tracing.tracer = nil
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                await self.loop(client: client, group: &group)
            }
        } onGracefulShutdown: { [doorbell] in
            doorbell.close()
        }
        // Record what the last attempts came to; anything unrecorded is retried after a restart.
        let results = finished.withLock { results in
            defer { results = [] }
            return results
        }
        if !results.isEmpty {
            do {
                _ = try await webhooks.deliveryRound(recording: results, claim: 0, now: clock(),
                                                     lease: settings.lease.seconds)
            } catch {
                logger.warning("recording the last webhook attempts failed: \(error)")
            }
        }
        try? await client.shutdown()
    }

    /// Rounds until shutdown or cancellation; attempts run as tasks of `group`.
    private func loop(client: HTTPClient, group: inout DiscardingTaskGroup) async {
        var lastRound = ContinuousClock.now - settings.roundSpacing
        while !doorbell.isClosed && !Task.isCancelled {
            // Space rounds out: each is a write transaction, and orders need the writer more.
            let spacing = lastRound + settings.roundSpacing - .now
            if spacing > .zero { try? await Task.sleep(for: spacing) }
            lastRound = .now
            let results = finished.withLock { results in
                defer { results = [] }
                return results
            }
            let free = settings.maxConcurrentDeliveries - inFlight.load(ordering: .relaxed)
            let round: WebhookRound
            do {
                round = try await webhooks.deliveryRound(recording: results, claim: max(free, 0), now: clock(),
                                                         lease: settings.lease.seconds)
            } catch {
                logger.warning("a webhook delivery round failed: \(error)")
                finished.withLock { $0 = results + $0 }
                await doorbell.wait(upTo: settings.pollInterval)
                continue
            }
            forgetBodies(keepingFor: round.jobs)
            for job in round.jobs {
                inFlight.add(1, ordering: .relaxed)
                group.addTask {
                    let result = await self.attempt(job, client: client)
                    self.finished.withLock { $0.append(result) }
                    self.inFlight.subtract(1, ordering: .relaxed)
                    self.doorbell.ring()
                }
            }
            if round.moreEvents { continue }
            var wait = settings.pollInterval
            if let due = round.nextDue {
                wait = min(wait, .milliseconds(Int64(max(0, due.timeIntervalSince(clock())) * 1000)))
            }
            await doorbell.wait(upTo: wait)
        }
    }

    // MARK: - One attempt

    /// Posts a job's event once and says what happens next.
    func attempt(_ job: WebhookJob, client: HTTPClient) async -> WebhookAttemptResult {
        let attemptedAt = clock()
        let started = ContinuousClock.now
        let timeout = settings.attemptTimeout(leasedUntil: job.leasedUntil, now: attemptedAt)
        var statusCode: Int?
        var failure: String?
        do {
            let body = try await body(for: job.event)
            var request = HTTPClientRequest(url: job.url)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.headers.add(name: "User-Agent", value: "Canteen-Webhooks/1")
            request.headers.add(name: "Canteen-Event-Id", value: job.event.id)
            request.headers.add(name: "Canteen-Event-Type", value: job.event.type.rawValue)
            request.headers.add(name: WebhookSignature.headerName,
                                value: WebhookSignature.header(body: body, secrets: job.secrets, at: clock()))
            request.body = .bytes(body)
            let response = try await DeliveryTracing.send(request, job: job, traced: settings.traced) { request in
                try await client.execute(request, timeout: .nanoseconds(Int64(timeout.seconds * 1e9)), logger: logger)
            }
            statusCode = Int(response.status.code)
            let snippet = try await Self.prefix(of: response.body, bytes: 200)
            if !(200..<300).contains(Int(response.status.code)) {
                failure = "HTTP \(response.status.code)" + (snippet.isEmpty ? "" : ": \(snippet)")
            }
        } catch {
            failure = describe(error, timeout: timeout)
        }
        let latency = ContinuousClock.now - started
        let attempt = WebhookAttempt(attemptedAt: attemptedAt, statusCode: statusCode,
                                     latencyMilliseconds: Int(latency.seconds * 1000), error: failure)
        let next: WebhookAttemptResult.Next
        if failure == nil {
            next = .delivered
        } else if clock().timeIntervalSince(job.firstAttemptAt ?? attemptedAt) >= settings.retryPeriod.seconds {
            next = .failed
            logger.warning("webhook \(job.endpointID) gave up on event \(job.event.id) after \(job.attempt) attempts")
        } else {
            let delay = settings.retryDelay(afterAttempt: job.attempt, random: Double.random(in: 0..<1))
            next = .retry(at: clock().addingTimeInterval(delay.seconds))
        }
        return WebhookAttemptResult(endpointID: job.endpointID, eventSequence: job.event.sequence,
                                    leasedUntil: job.leasedUntil, attempt: attempt, next: next)
    }

    /// The event's body, rendered once for every endpoint it goes to.
    private func body(for event: OrderEvent) async throws -> [UInt8] {
        if let body = bodies.withLock({ $0[event.sequence] }) { return body }
        let body = try await render(event)
        bodies.withLock { $0[event.sequence] = body }
        return body
    }

    /// Keeps the rendered bodies of the events still being delivered.
    private func forgetBodies(keepingFor jobs: [WebhookJob]) {
        bodies.withLock { bodies in
            guard bodies.count > 4 * settings.maxConcurrentDeliveries else { return }
            let wanted = Set(jobs.map(\.event.sequence))
            bodies = bodies.filter { wanted.contains($0.key) }
        }
    }

    /// The first `bytes` bytes of a body as text (the rest is read and dropped).
    private static func prefix(of body: HTTPClientResponse.Body, bytes limit: Int) async throws -> String {
        var kept: [UInt8] = []
        for try await buffer in body where kept.count < limit {
            kept += buffer.readableBytesView.prefix(limit - kept.count)
        }
        return String(decoding: kept, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// What went wrong, for the attempt's record.
    private func describe(_ error: any Error, timeout: Duration) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .connectTimeout:
                return "timed out after \(timeout)"
            case .remoteConnectionClosed:
                return "the receiver closed the connection"
            default:
                return "\(error)"
            }
        }
        if let error = error as? CanteenError { return "the event could not be rendered: \(error.message)" }
        return String(describing: error)
    }
}

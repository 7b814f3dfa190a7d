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
///
/// Before each attempt the URL's host is resolved and every address judged by the settings'
/// `addressPolicy`; the request goes to the address judged (`PinnedClients`). Only the
/// receiver's status is kept, never its body. On graceful shutdown the attempts in flight are
/// cancelled and recorded as interrupted, due again at once: the server stops without waiting
/// for a receiver that does not answer.
public final class WebhookDeliveryService: Service, Sendable {
    /// Renders an event's JSON body (after its commit, outside the database writer).
    public typealias Renderer = @Sendable (OrderEvent) async throws -> [UInt8]

    private let webhooks: any WebhookRepository
    private let render: Renderer
    private let settings: WebhookDeliverySettings
    private let resolver: any HostResolver
    private let logger: Logger
    private let clock: @Sendable () -> Date
    private let doorbell = Doorbell()
    private let finished = Mutex<[WebhookAttemptResult]>([])
    private let bodies = Mutex<[Int64: [UInt8]]>([:])
    private let inFlight = Atomic<Int>(0)

    /// - Parameters:
    ///   - events: this process's order events ring the service's doorbell as they commit.
    ///   - resolver: resolves receivers' host names before each attempt.
    ///   - clock: wall time of attempts and due dates (the real one outside tests).
    public init(
        webhooks: any WebhookRepository, events: any OrderEventRepository, render: @escaping Renderer,
        settings: WebhookDeliverySettings = WebhookDeliverySettings(),
        resolver: any HostResolver = SystemHostResolver(),
        logger: Logger = Logger(label: "canteen.webhooks"), clock: @escaping @Sendable () -> Date = Date.init
    ) {
        self.webhooks = webhooks
        self.render = render
        self.settings = settings
        self.resolver = resolver
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
        let clients = PinnedClients(configuration: configuration)
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                await self.loop(clients: clients, group: &group)
                // Stopping: the attempts in flight end now, recorded as interrupted (`attempt`).
                group.cancelAll()
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
                _ = try await webhooks.deliveryRound(
                    recording: results, claim: 0, now: clock(),
                    lease: settings.lease.seconds)
            } catch {
                logger.warning("recording the last webhook attempts failed: \(error)")
            }
        }
        for client in clients.takeAll() { try? await client.shutdown() }
    }

    /// Rounds until shutdown or cancellation; attempts run as tasks of `group`.
    private func loop(clients: PinnedClients, group: inout DiscardingTaskGroup) async {
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
                round = try await webhooks.deliveryRound(
                    recording: results, claim: max(free, 0), now: clock(),
                    lease: settings.lease.seconds)
            } catch {
                logger.warning("a webhook delivery round failed: \(error)")
                finished.withLock { $0 = results + $0 }
                await doorbell.wait(upTo: settings.pollInterval)
                continue
            }
            forgetBodies(keepingFor: round.jobs)
            for client in clients.takeIdle(for: Self.idleClientLifetime) {
                group.addTask { try? await client.shutdown() }
            }
            for job in round.jobs {
                inFlight.add(1, ordering: .relaxed)
                group.addTask {
                    let result = await self.attempt(job, clients: clients)
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

    /// How long a receiver's client is kept without attempts before it is shut down.
    static let idleClientLifetime: Duration = .seconds(300)

    /// The most bytes of a receiver's answer read (and dropped) so that its connection can be reused.
    static let drainedBodyBytes = 64 * 1024

    /// Posts a job's event once and says what happens next.
    func attempt(_ job: WebhookJob, clients: PinnedClients) async -> WebhookAttemptResult {
        let attemptedAt = clock()
        let started = ContinuousClock.now
        let timeout = settings.attemptTimeout(leasedUntil: job.leasedUntil, now: attemptedAt)
        var statusCode: Int?
        var failure: String?
        var refused = false
        do {
            let destination = try WebhookDestination(url: job.url)
            switch await settings.addressPolicy.verdict(for: destination, resolver: resolver) {
            case .refused(let reason):
                failure = "refused: \(reason)"
                refused = true
            case .unresolved(let error):
                failure = "\(error)"
            case .connect(let address):
                let body = try await body(for: job.event)
                let status = try await clients.withClient(for: destination, address: address) { client in
                    try await post(body, for: job, client: client, timeout: timeout)
                }
                statusCode = status
                if !(200..<300).contains(status) { failure = "HTTP \(status)" }
            }
        } catch let error as CanteenError where error.code == .invalidWebhookUrl {
            failure = "refused: \(error.message)"
            refused = true
        } catch {
            failure = describe(error, timeout: timeout)
        }
        let latency = ContinuousClock.now - started
        let next: WebhookAttemptResult.Next
        if Task.isCancelled && statusCode == nil && !refused {
            // The server is stopping and cut the attempt short. It is recorded (the receiver may
            // have had the request) and due again at once, whatever the retry period says.
            failure = "interrupted after \(Self.seconds(latency)): the server shut down"
            next = .retry(at: clock())
        } else if failure == nil {
            next = .delivered
        } else if clock().timeIntervalSince(job.firstAttemptAt ?? attemptedAt) >= settings.retryPeriod.seconds {
            next = .failed
            logger.warning("webhook \(job.endpointID) gave up on event \(job.event.id) after \(job.attempt) attempts")
        } else {
            let delay = settings.retryDelay(afterAttempt: job.attempt, random: Double.random(in: 0..<1))
            next = .retry(at: clock().addingTimeInterval(delay.seconds))
        }
        let attempt = WebhookAttempt(
            attemptedAt: attemptedAt, statusCode: statusCode,
            latencyMilliseconds: Int(latency.seconds * 1000), error: failure)
        return WebhookAttemptResult(
            endpointID: job.endpointID, eventSequence: job.event.sequence,
            leasedUntil: job.leasedUntil, attempt: attempt, next: next)
    }

    /// Sends the request and returns the receiver's status. Its answer's body is read up to
    /// `drainedBodyBytes` and dropped (never kept, logged or shown); the status is what counts,
    /// so a body cut short changes nothing.
    private func post(_ body: [UInt8], for job: WebhookJob, client: HTTPClient, timeout: Duration) async throws -> Int {
        var request = HTTPClientRequest(url: job.url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "Canteen-Webhooks/1")
        request.headers.add(name: "Canteen-Event-Id", value: job.event.id)
        request.headers.add(name: "Canteen-Event-Type", value: job.event.type.rawValue)
        request.headers.add(
            name: WebhookSignature.headerName,
            value: WebhookSignature.header(body: body, secrets: job.secrets, at: clock()))
        request.body = .bytes(body)
        let response = try await DeliveryTracing.send(request, job: job, traced: settings.traced) { request in
            try await client.execute(request, timeout: .nanoseconds(Int64(timeout.seconds * 1e9)), logger: logger)
        }
        var drained = 0
        do {
            for try await buffer in response.body {
                drained += buffer.readableBytes
                if drained >= Self.drainedBodyBytes { break }
            }
        } catch {
            logger.debug("the answer of webhook \(job.endpointID) ended early: \(error)")
        }
        return Int(response.status.code)
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

    /// What went wrong, in a few words of ours (never the receiver's).
    private func describe(_ error: any Error, timeout: Duration) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .connectTimeout:
                return "timed out after \(Self.seconds(timeout))"
            case .remoteConnectionClosed:
                return "the receiver closed the connection"
            default:
                return String("\(error)".prefix(200))
            }
        }
        if let error = error as? IOError { return "could not connect: \(String(cString: strerror(error.errnoCode)))" }
        if let error = error as? CanteenError { return "the event could not be rendered: \(error.message)" }
        return String(String(describing: error).prefix(200))
    }

    /// `10 s`, `8.6 s`, `26 ms`.
    static func seconds(_ duration: Duration) -> String {
        let seconds = duration.seconds
        if seconds < 1 { return "\(Int((seconds * 1000).rounded())) ms" }
        if seconds == seconds.rounded() { return "\(Int(seconds)) s" }
        return "\((seconds * 10).rounded() / 10) s"
    }
}

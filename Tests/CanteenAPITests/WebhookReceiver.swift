import CanteenCore
import CanteenJSON
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// A real HTTP server on loopback that receives webhook deliveries: it records every request
/// and answers as the test's `answer` says.
final class WebhookReceiver: Sendable {
    /// One request as received.
    struct Request: Sendable {
        let path: String
        let eventID: String
        let eventType: String
        let signature: String
        let body: [UInt8]
        /// The event's `data.id` (the order) and `sequence`.
        let orderID: String
        let sequence: Int64
        /// How many requests with this event id came before to this path (0 for the first).
        let earlier: Int
    }

    /// What the receiver does with a request.
    enum Answer: Sendable {
        case status(Int)
        /// Answers the status with this body (text).
        case statusAndBody(Int, String)
        /// Waits, then answers with the status.
        case delayed(Duration, Int)
        /// Answers 302 with a Location.
        case redirect(String)
        /// Holds the request while the condition holds (checked every 20 ms), then answers.
        case hold(while: @Sendable () -> Bool, then: Int)
    }

    private let received = Mutex<[Request]>([])
    private let answered = Mutex<[(Request, Int)]>([])
    private let answer: @Sendable (Request) async -> Answer

    init(answer: @escaping @Sendable (Request) async -> Answer = { _ in .status(204) }) {
        self.answer = answer
    }

    /// Every request, in arrival order.
    var requests: [Request] { received.withLock { $0 } }

    /// The requests answered 2xx, in the order their answers were sent.
    var accepted: [Request] { answered.withLock { $0 }.filter { (200..<300).contains($0.1) }.map(\.0) }

    /// Runs the receiver on 127.0.0.1:`port` (0: any free port) while `body` runs with its port.
    func serve<Value: Sendable>(port: Int = 0, _ body: @Sendable (Int) async throws -> Value) async throws -> Value {
        let router = Router()
        router.post("/**") { request, context -> Response in
            let bytes = Array(try await request.body.collect(upTo: 1 << 20).readableBytesView)
            let json = try? JSONValue.parse(Data(bytes))
            let eventID = request.headers[HTTPField.Name("Canteen-Event-Id")!] ?? ""
            let incoming = self.received.withLock { received in
                let entry = Request(
                    path: request.uri.path, eventID: eventID,
                    eventType: request.headers[HTTPField.Name("Canteen-Event-Type")!] ?? "",
                    signature: request.headers[HTTPField.Name("Canteen-Signature")!] ?? "", body: bytes,
                    orderID: json?.objectValue?["data"]?.objectValue?["id"]?.stringValue ?? "",
                    sequence: json?.objectValue?["sequence"]?.intValue ?? -1,
                    earlier: received.filter { $0.eventID == eventID && $0.path == request.uri.path }.count)
                received.append(entry)
                return entry
            }
            let status: Int
            var headers = HTTPFields()
            var body = ResponseBody()
            switch await self.answer(incoming) {
            case .status(let code):
                status = code
            case .statusAndBody(let code, let text):
                status = code
                headers[.contentType] = "text/plain"
                body = ResponseBody(byteBuffer: ByteBuffer(string: text))
            case .delayed(let wait, let code):
                try? await Task.sleep(for: wait)
                status = code
            case .redirect(let location):
                status = 302
                headers[.location] = location
            case .hold(let condition, let code):
                while condition() { try? await Task.sleep(for: .milliseconds(20)) }
                status = code
            }
            self.answered.withLock { $0.append((incoming, status)) }
            return Response(status: .init(code: status), headers: headers, body: body)
        }
        let bound = Mutex<Int?>(nil)
        var logger = Logger(label: "webhook-receiver")
        logger.logLevel = .error
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { channel in bound.withLock { $0 = channel.localAddress?.port } },
            logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let deadline = ContinuousClock.now + .seconds(60)  // a busy machine may take long to bind
            while bound.withLock({ $0 }) == nil {
                guard ContinuousClock.now < deadline else { throw TestFailure("the receiver did not start") }
                try await Task.sleep(for: .milliseconds(10))
            }
            do {
                let value = try await body(bound.withLock { $0 }!)
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                return value
            } catch {
                await group.triggerGracefulShutdown()
                try? await tasks.waitForAll()
                throw error
            }
        }
    }
}

extension JSONValue {
    var intValue: Int64? {
        if case .int(let value) = self { return value }
        return nil
    }
}

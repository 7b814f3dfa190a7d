import Beacons
import Foundation
import Synchronization

// MARK: - HCIChannel

/// Runs the blocking reads of a transport on a dedicated thread, matches Command Complete / Status
/// events to the command awaiting them, and hands every other event to `events`.
final class HCIChannel: Sendable {
    /// An event read from the controller (no H4 byte) and when it was read.
    struct ReceivedEvent: Sendable {
        var bytes: [UInt8]
        var time: Date
    }

    private struct PendingCommand {
        var opcode: UInt16
        var deadline: ContinuousClock.Instant
        var continuation: CheckedContinuation<[UInt8], any Error>
    }

    private struct State {
        var pending: PendingCommand?
        var stopRequested = false
        var finished: ScannerError??  // set once the reader thread ended (nil inside: cleanly)
    }

    let events: AsyncThrowingStream<ReceivedEvent, any Error>
    private let continuation: AsyncThrowingStream<ReceivedEvent, any Error>.Continuation
    private let transport: any HCITransport
    private let recorder: CaptureRecorder?
    private let clock: @Sendable () -> Date
    private let state = Mutex(State())
    private let stopped = DispatchSemaphore(value: 0)

    init(transport: any HCITransport, recorder: CaptureRecorder?, clock: @escaping @Sendable () -> Date) {
        self.transport = transport
        self.recorder = recorder
        self.clock = clock
        (events, continuation) = AsyncThrowingStream.makeStream(bufferingPolicy: .bufferingNewest(4096))
    }

    // MARK: - Lifecycle

    /// Starts the reader thread.
    func start() {
        let thread = Thread { [self] in
            readLoop()
            stopped.signal()
        }
        thread.name = "canteen.hci-reader"
        thread.start()
    }

    /// Stops the reader thread and waits (off the cooperative pool) until it has ended.
    func stop() async {
        let alreadyFinished = state.withLock { state in
            state.stopRequested = true
            return state.finished != nil
        }
        if alreadyFinished { return }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async { [stopped] in
                stopped.wait()
                done.resume()
            }
        }
    }

    // MARK: - Commands

    /// Sends a command and waits for its Command Complete (return parameters, status first) or a
    /// failing Command Status. Not cancelled by task cancellation: shutdown still gets its answer.
    func execute(_ command: HCICommand, timeout: Double) async throws -> [UInt8] {
        let packet = [H4PacketType.command.rawValue] + command.bytes
        let parameters: [UInt8] = try await withCheckedThrowingContinuation { continuation in
            let refusal: ScannerError? = state.withLock { state in
                if let finished = state.finished { return finished ?? .transportClosed }
                if state.stopRequested { return .transportClosed }
                state.pending = PendingCommand(
                    opcode: command.opcode, deadline: .now + .milliseconds(Int(timeout * 1000)),
                    continuation: continuation)
                return nil
            }
            if let refusal {
                continuation.resume(throwing: refusal)
                return
            }
            do {
                recorder?.record(packet, direction: .sent, at: clock())
                try transport.send(packet)
            } catch {
                let pending = state.withLock { state in
                    defer { state.pending = nil }
                    return state.pending
                }
                pending?.continuation.resume(throwing: error)
            }
        }
        guard let status = parameters.first else {
            throw ScannerError(
                code: "command_failed", message: "\(HCIOpcode.name(command.opcode)) returned nothing",
                opcode: command.opcode)
        }
        guard status == 0 else { throw ScannerError.commandFailed(opcode: command.opcode, status: status) }
        return parameters
    }

    // MARK: - Reader thread

    private func readLoop() {
        var failure: ScannerError?
        while !state.withLock({ $0.stopRequested }) {
            expireOverdueCommand()
            do {
                guard let packet = try transport.receive(timeoutMilliseconds: 50) else { continue }
                let now = clock()
                recorder?.record(packet, direction: .received, at: now)
                guard packet.first == H4PacketType.event.rawValue else { continue }
                let event = Array(packet.dropFirst())
                if !completeCommand(with: event) {
                    continuation.yield(ReceivedEvent(bytes: event, time: now))
                }
            } catch {
                failure = error
                break
            }
        }
        let pending = state.withLock { state in
            state.finished = .some(failure)
            defer { state.pending = nil }
            return state.pending
        }
        pending?.continuation.resume(throwing: failure ?? ScannerError.transportClosed)
        if let failure {
            continuation.finish(throwing: failure)
        } else {
            continuation.finish()
        }
    }

    /// Resumes the waiting command if `event` answers it.
    private func completeCommand(with event: [UInt8]) -> Bool {
        guard let first = event.first, first == HCIEvent.commandCompleteCode || first == HCIEvent.commandStatusCode,
            let decoded = HCIEvent(bytes: event)
        else { return false }
        let answer: (opcode: UInt16, result: [UInt8])
        switch decoded {
        case let .commandComplete(opcode, returnParameters): answer = (opcode, returnParameters)
        case let .commandStatus(opcode, status): answer = (opcode, [status])
        default: return false
        }
        let pending: PendingCommand? = state.withLock { state in
            guard let pending = state.pending, pending.opcode == answer.opcode else { return nil }
            state.pending = nil
            return pending
        }
        pending?.continuation.resume(returning: answer.result)
        return true
    }

    private func expireOverdueCommand() {
        let now = ContinuousClock.now
        let overdue: PendingCommand? = state.withLock { state in
            guard let pending = state.pending, pending.deadline < now else { return nil }
            state.pending = nil
            return pending
        }
        if let overdue {
            overdue.continuation.resume(throwing: ScannerError.commandTimeout(opcode: overdue.opcode))
        }
    }
}

import CPCSC
import Foundation

// MARK: - PCSCReader

/// One PC/SC reader: taps and removals through `SCardGetStatusChange`, connections in shared mode.
public struct PCSCReader: CardReaderDevice {
    let context: PCSCContext
    public let name: String

    public func waitForCard(timeout: Double?) async throws(CardReaderError) -> Bool {
        try await wait(present: true, timeout: timeout)
    }

    public func waitForRemoval(timeout: Double?) async throws(CardReaderError) -> Bool {
        try await wait(present: false, timeout: timeout)
    }

    /// Waits in steps of at most 1 s until the field is (or is not) occupied, so a cancelled task ends soon
    /// even if `SCardCancel` raced the call.
    func wait(present: Bool, timeout: Double?) async throws(CardReaderError) -> Bool {
        let deadline = timeout.map { Date().addingTimeInterval($0) }
        var known = CPCSC_STATE_UNAWARE
        while true {
            if Task.isCancelled {
                throw CardReaderError(code: "cancelled", message: "waiting for a card was cancelled")
            }
            let step = deadline.map { max(0, min(1, $0.timeIntervalSinceNow)) } ?? 1
            let (status, state) = try await context.run {
                [context, name, known] () throws(CardReaderError) -> (Int, UInt32) in
                var event: UInt32 = 0
                var atr = [UInt8](repeating: 0, count: 33)
                var length: UInt32 = 0
                let status = cpcsc_wait_change(context.handle, name, known, &event, &atr, &length, UInt32(step * 1000))
                return (status, event)
            }
            switch status {
            case CPCSC_SUCCESS:
                known = state & ~CPCSC_STATE_CHANGED
                if (state & CPCSC_STATE_PRESENT != 0) == present { return true }
            case CPCSC_E_TIMEOUT:
                break
            case CPCSC_E_CANCELLED:
                throw CardReaderError(code: "cancelled", message: "waiting for a card was cancelled")
            default:
                throw PCSCContext.error(status, "watching reader \(name)")
            }
            if let deadline, deadline.timeIntervalSinceNow <= 0 { return false }
        }
    }

    public func connect() async throws(CardReaderError) -> any CardConnection {
        try await context.run { [context, name] () throws(CardReaderError) -> PCSCCardConnection in
            var card: SCARDHANDLE = 0
            var protocolValue: UInt32 = 0
            let status = cpcsc_connect(context.handle, name, &card, &protocolValue)
            guard status == CPCSC_SUCCESS else {
                throw PCSCContext.error(status, "cannot connect to the card in \(name)")
            }
            var event: UInt32 = 0
            var atr = [UInt8](repeating: 0, count: 33)
            var length: UInt32 = 0
            _ = cpcsc_wait_change(context.handle, name, CPCSC_STATE_UNAWARE, &event, &atr, &length, 0)
            return PCSCCardConnection(
                context: context, handle: card, protocolValue: protocolValue, atr: Array(atr.prefix(Int(length))))
        }
    }
}

// MARK: - PCSCCardConnection

/// A connection to the card in a PC/SC reader; disconnects (leaving the card) when released.
final class PCSCCardConnection: CardConnection, @unchecked Sendable {
    let context: PCSCContext
    let handle: SCARDHANDLE
    let protocolValue: UInt32
    let atr: [UInt8]

    init(context: PCSCContext, handle: SCARDHANDLE, protocolValue: UInt32, atr: [UInt8]) {
        self.context = context
        self.handle = handle
        self.protocolValue = protocolValue
        self.atr = atr
    }

    deinit {
        _ = cpcsc_disconnect(handle)
    }

    func transmit(_ apdu: [UInt8]) async throws(CardReaderError) -> ResponseAPDU {
        let bytes = try await context.run { [handle, protocolValue] () throws(CardReaderError) -> [UInt8] in
            var receive = [UInt8](repeating: 0, count: 264)
            var length = UInt32(receive.count)
            let status = cpcsc_transmit(handle, protocolValue, apdu, UInt32(apdu.count), &receive, &length)
            guard status == CPCSC_SUCCESS else { throw PCSCContext.error(status, "the card did not answer") }
            return Array(receive.prefix(Int(length)))
        }
        return try ResponseAPDU(bytes: bytes)
    }
}

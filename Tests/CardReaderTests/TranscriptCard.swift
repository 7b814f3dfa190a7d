import CardReader
import NFC
import Synchronization

// MARK: - TranscriptCard

/// A card that answers from a transcript of (command, answer) pairs, in order; a command off the transcript is
/// recorded and answered 6D 00, so a test sees exactly what product code sent.
final class TranscriptCard: CardConnection {
    let atr: [UInt8]
    private let state: Mutex<(steps: [(command: [UInt8], answer: [UInt8])], sent: [[UInt8]], unexpected: [[UInt8]])>

    init(atr: [UInt8], steps: [(command: String, answer: String)]) {
        self.atr = atr
        state = Mutex((steps.map { (bytes(fromHex: $0.command)!, bytes(fromHex: $0.answer)!) }, [], []))
    }

    var sent: [[UInt8]] { state.withLock { $0.sent } }
    var unexpected: [[UInt8]] { state.withLock { $0.unexpected } }
    var remaining: Int { state.withLock { $0.steps.count } }

    func transmit(_ apdu: [UInt8]) async throws(CardReaderError) -> ResponseAPDU {
        let answer: [UInt8] = state.withLock { state in
            state.sent.append(apdu)
            guard let step = state.steps.first, step.command == apdu else {
                state.unexpected.append(apdu)
                return [0x6D, 0x00]
            }
            state.steps.removeFirst()
            return step.answer
        }
        return try ResponseAPDU(bytes: answer)
    }
}

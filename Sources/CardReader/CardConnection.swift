import NFC

// MARK: - ResponseAPDU

/// A card's answer: data and the status word (90 00 is success).
public struct ResponseAPDU: Hashable, Sendable {
    public var data: [UInt8]
    public var sw1: UInt8
    public var sw2: UInt8

    public init(data: [UInt8], sw1: UInt8, sw2: UInt8) {
        self.data = data
        self.sw1 = sw1
        self.sw2 = sw2
    }

    /// Splits raw bytes; fewer than 2 bytes (no status word) is an error, as vpcd answers 0 bytes when the card
    /// left mid-command.
    public init(bytes: [UInt8]) throws(CardReaderError) {
        guard bytes.count >= 2 else {
            throw CardReaderError(
                code: "card_removed", message: "the card gave no status word (\(bytes.count) bytes): was it removed?")
        }
        data = Array(bytes.dropLast(2))
        sw1 = bytes[bytes.count - 2]
        sw2 = bytes[bytes.count - 1]
    }

    public var isSuccess: Bool { sw1 == 0x90 && sw2 == 0x00 }
    public var statusWord: String { [sw1, sw2].hexString }
}

// MARK: - CardConnection

/// A connection to the card in a reader's field: what product code talks to, so it can run on transcripts.
public protocol CardConnection: Sendable {
    /// The card's ATR, as the reader built it.
    var atr: [UInt8] { get }
    /// Sends one command APDU and returns the card's answer.
    func transmit(_ apdu: [UInt8]) async throws(CardReaderError) -> ResponseAPDU
}

// MARK: - CardReaderDevice

/// A reader: waits for taps and removals and connects to the card.
public protocol CardReaderDevice: Sendable {
    /// The reader's name as PC/SC lists it.
    var name: String { get }
    /// Waits until a card is in the field; false when `timeout` (seconds) passed first.
    func waitForCard(timeout: Double?) async throws(CardReaderError) -> Bool
    /// Waits until the field is empty; false when `timeout` (seconds) passed first.
    func waitForRemoval(timeout: Double?) async throws(CardReaderError) -> Bool
    /// Connects to the card in the field.
    func connect() async throws(CardReaderError) -> any CardConnection
}

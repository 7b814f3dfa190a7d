// MARK: - TransitHistoryEntry

/// One 16-byte block of a Japanese transit IC card's history (service 0x090F; block 0 is the newest).
///
/// Byte 0 terminal type, 1 process, 2 payment type, 3 entry/exit type, 4–5 date (7-bit year since 2000, 4-bit month, 5-bit day, big-endian),
/// 6–9 line and station codes, 10–11 balance after the event (little-endian, yen), 12–14 serial, 15 region.
public struct TransitHistoryEntry: Hashable, Sendable {
    /// The history service code, `0F 09` on the wire.
    public static let serviceCode: UInt16 = 0x090F

    /// What happened, from the process byte (bit 7 only marks the payment kind, and is ignored here).
    public enum Kind: Hashable, Sendable {
        case fare
        case topUp
        case ticket
        case purchase
        case other(UInt8)

        init(process: UInt8) {
            switch process & 0x7F {
            case 0x01: self = .fare
            case 0x02, 0x14, 0x15: self = .topUp
            case 0x03, 0x07: self = .ticket
            case 0x46, 0x4B, 0x49: self = .purchase
            default: self = .other(process & 0x7F)
            }
        }

        /// The name used in JSON and tables.
        public var name: String {
            switch self {
            case .fare: "fare"
            case .topUp: "top-up"
            case .ticket: "ticket"
            case .purchase: "purchase"
            case .other(let code): "process-0x\([code].hexString)"
            }
        }
    }

    public var terminalType: UInt8
    public var process: UInt8
    public var paymentType: UInt8 = 0
    public var gateType: UInt8 = 0
    public var year: Int
    public var month: Int
    public var day: Int
    /// Balance after the event, in yen (JPY minor units).
    public var balance: Int64
    public var serial: UInt32
    public var region: UInt8
    /// Bytes 6–9: entry and exit line/station codes (the time, for retail).
    public var stations: [UInt8]

    public var kind: Kind { Kind(process: process) }

    /// The date as `YYYY-MM-DD`.
    public var date: String {
        let month = month < 10 ? "0\(month)" : "\(month)"
        let day = day < 10 ? "0\(day)" : "\(day)"
        return "\(year)-\(month)-\(day)"
    }

    /// Decodes one block; `offset` names the block's position in a longer buffer, for errors.
    public init(block: [UInt8], offset: Int = 0) throws(NFCDecodingError) {
        guard block.count == 16 else {
            throw NFCDecodingError(
                code: block.count < 16 ? "nfc_truncated" : "nfc_invalid_value", offset: offset,
                message: "a history block has 16 bytes, not \(block.count)")
        }
        terminalType = block[0]
        process = block[1]
        paymentType = block[2]
        gateType = block[3]
        let date = UInt16(block[4]) << 8 | UInt16(block[5])
        year = 2000 + Int(date >> 9)
        month = Int((date >> 5) & 0x0F)
        day = Int(date & 0x1F)
        guard (1...12).contains(month) else { throw .invalid("history month \(month) is not 1–12", at: offset + 4) }
        guard day >= 1 else { throw .invalid("history day 0 is not a day", at: offset + 5) }
        stations = Array(block[6..<10])
        balance = Int64(UInt16(block[11]) << 8 | UInt16(block[10]))
        serial = UInt32(block[12]) << 16 | UInt32(block[13]) << 8 | UInt32(block[14])
        region = block[15]
    }

    public init(
        terminalType: UInt8, process: UInt8, year: Int, month: Int, day: Int, balance: Int64,
        serial: UInt32 = 0, region: UInt8 = 0, stations: [UInt8] = [0, 0, 0, 0]
    ) {
        self.terminalType = terminalType
        self.process = process
        self.year = year
        self.month = month
        self.day = day
        self.balance = balance
        self.serial = serial
        self.region = region
        self.stations = stations
    }

    /// The 16-byte block.
    public var encoded: [UInt8] {
        let date = UInt16((year - 2000) & 0x7F) << 9 | UInt16(month & 0x0F) << 5 | UInt16(day & 0x1F)
        let yen = UInt16(clamping: balance)
        return [terminalType, process, paymentType, gateType, UInt8(date >> 8), UInt8(date & 0xFF)] + stations.prefix(4)
            + [
                UInt8(yen & 0xFF), UInt8(yen >> 8), UInt8(serial >> 16 & 0xFF), UInt8(serial >> 8 & 0xFF),
                UInt8(serial & 0xFF), region,
            ]
    }

    /// The entries of history blocks, newest first; all-zero blocks (unused slots) are skipped.
    public static func entries(blocks: [[UInt8]]) throws(NFCDecodingError) -> [TransitHistoryEntry] {
        var result: [TransitHistoryEntry] = []
        for (index, block) in blocks.enumerated() where !block.allSatisfy({ $0 == 0 }) {
            result.append(try TransitHistoryEntry(block: block, offset: 16 * index))
        }
        return result
    }
}

// MARK: - TransitBalance

/// The card's balance from service 0x008B block 0 (bytes 11–12, little-endian, yen).
public enum TransitBalance {
    /// The balance service code, `8B 00` on the wire.
    public static let serviceCode: UInt16 = 0x008B

    public static func balance(block: [UInt8]) throws(NFCDecodingError) -> Int64 {
        guard block.count == 16 else {
            throw NFCDecodingError(
                code: block.count < 16 ? "nfc_truncated" : "nfc_invalid_value", offset: 0,
                message: "a balance block has 16 bytes, not \(block.count)")
        }
        return Int64(UInt16(block[12]) << 8 | UInt16(block[11]))
    }

    /// A 0x008B block holding `balance` yen.
    public static func block(balance: Int64) -> [UInt8] {
        let yen = UInt16(clamping: balance)
        var block = [UInt8](repeating: 0, count: 16)
        block[11] = UInt8(yen & 0xFF)
        block[12] = UInt8(yen >> 8)
        return block
    }
}

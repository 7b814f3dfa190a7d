// MARK: - HCIEvent

/// An HCI event (code, length, parameters; no H4 byte), decoded as far as the scanner needs.
public enum HCIEvent: Hashable, Sendable {
    /// Command Complete (0x0E): the command's opcode and its return parameters (status first).
    case commandComplete(opcode: UInt16, returnParameters: [UInt8])
    /// Command Status (0x0F): the command's opcode and its status (0 = pending).
    case commandStatus(opcode: UInt16, status: UInt8)
    /// LE Meta (0x3E): the subevent code and the rest of its parameters.
    case leMeta(subevent: UInt8, parameters: [UInt8])
    /// Any other event.
    case other(code: UInt8, parameters: [UInt8])

    public static let commandCompleteCode: UInt8 = 0x0E
    public static let commandStatusCode: UInt8 = 0x0F
    public static let leMetaCode: UInt8 = 0x3E

    /// Decodes an event; nil when the bytes are too short or the length byte does not match them.
    ///
    /// With `cutByCapture` (a btsnoop record that kept fewer bytes than the packet had), an event
    /// shorter than its length byte says is decoded from the bytes present, as the report parser does.
    public init?(bytes: [UInt8], cutByCapture: Bool = false) {
        guard let end = bytes.withUnsafeBytes({ Self.parameterEnd(of: $0, cutByCapture: cutByCapture) }) else {
            return nil
        }
        let parameters = Array(bytes[2..<end])
        switch bytes[0] {
        case Self.commandCompleteCode:
            guard parameters.count >= 3 else { return nil }
            let opcode = UInt16(parameters[1]) | UInt16(parameters[2]) << 8
            self = .commandComplete(opcode: opcode, returnParameters: Array(parameters[3...]))
        case Self.commandStatusCode:
            guard parameters.count >= 4 else { return nil }
            let opcode = UInt16(parameters[2]) | UInt16(parameters[3]) << 8
            self = .commandStatus(opcode: opcode, status: parameters[0])
        case Self.leMetaCode:
            guard let subevent = parameters.first else { return nil }
            self = .leMeta(subevent: subevent, parameters: Array(parameters.dropFirst()))
        default:
            self = .other(code: bytes[0], parameters: parameters)
        }
    }

    /// Where an event's parameters end: one rule for `HCIEvent` and `AdvertisingReportParser`.
    ///
    /// The length byte must match the bytes that follow it; a capture that cut the packet may hold
    /// fewer (never more). Nil for a malformed event.
    static func parameterEnd(of event: UnsafeRawBufferPointer, cutByCapture: Bool) -> Int? {
        guard event.count >= 2 else { return nil }
        let declaredEnd = 2 + Int(event[1])
        if declaredEnd == event.count { return declaredEnd }
        return cutByCapture && declaredEnd > event.count ? event.count : nil
    }

    /// Encodes the event (code, length, parameters).
    public var bytes: [UInt8] {
        var parameters: [UInt8]
        let code: UInt8
        switch self {
        case let .commandComplete(opcode, returnParameters):
            code = Self.commandCompleteCode
            parameters = [1]
            parameters.appendLittleEndian(opcode)
            parameters += returnParameters
        case let .commandStatus(opcode, status):
            code = Self.commandStatusCode
            parameters = [status, 1]
            parameters.appendLittleEndian(opcode)
        case let .leMeta(subevent, rest):
            code = Self.leMetaCode
            parameters = [subevent] + rest
        case let .other(otherCode, rest):
            code = otherCode
            parameters = rest
        }
        return [code, UInt8(truncatingIfNeeded: parameters.count)] + parameters.prefix(255)
    }
}

// MARK: - HCICommand

/// An HCI command packet (opcode, length, parameters; no H4 byte).
public struct HCICommand: Hashable, Sendable {
    public var opcode: UInt16
    public var parameters: [UInt8]

    public init(opcode: UInt16, parameters: [UInt8] = []) {
        self.opcode = opcode
        self.parameters = parameters
    }

    /// Decodes a command packet; nil when the length byte does not match.
    public init?(bytes: [UInt8]) {
        guard bytes.count >= 3, Int(bytes[2]) == bytes.count - 3 else { return nil }
        self.init(opcode: UInt16(bytes[0]) | UInt16(bytes[1]) << 8, parameters: Array(bytes[3...]))
    }

    /// The packet bytes (opcode little-endian, length, parameters).
    public var bytes: [UInt8] {
        var packet: [UInt8] = []
        packet.appendLittleEndian(opcode)
        packet.append(UInt8(truncatingIfNeeded: parameters.count))
        packet += parameters
        return packet
    }
}

import Foundation

// MARK: - IBeacon

/// The iBeacon payload: Apple manufacturer data (0x004C), type 0x02, length 0x15.
public struct IBeacon: Hashable, Sendable {
    public var identity: BeaconIdentity
    /// Calibrated RSSI at 1 m, in dBm, as the beacon advertises it.
    public var measuredPower: Int8

    public init(identity: BeaconIdentity, measuredPower: Int8) {
        self.identity = identity
        self.measuredPower = measuredPower
    }

    static let payloadLength = 25  // company (2), type, length, UUID (16), major, minor, power

    /// Finds the iBeacon structure in advertising data; nil for anything else.
    public static func parse(advertisingData data: UnsafeRawBufferPointer) -> IBeacon? {
        var found: IBeacon?
        AdvertisingData.forEachStructure(in: data) { structure in
            guard found == nil, structure.type == 0xFF else { return }
            found = parse(manufacturerData: structure.payload)
        }
        return found
    }

    /// Parses advertising data held in an array.
    public static func parse(advertisingData data: [UInt8]) -> IBeacon? {
        data.withUnsafeBytes { parse(advertisingData: $0) }
    }

    /// Parses the payload of a manufacturer-specific AD structure (company identifier first).
    public static func parse(manufacturerData payload: UnsafeRawBufferPointer) -> IBeacon? {
        guard payload.count == 25, payload[0] == 0x4C, payload[1] == 0x00,
            payload[2] == 0x02, payload[3] == 0x15
        else { return nil }
        let uuid = UUID(
            uuid: (
                payload[4], payload[5], payload[6], payload[7], payload[8], payload[9], payload[10], payload[11],
                payload[12], payload[13], payload[14], payload[15], payload[16], payload[17], payload[18], payload[19]
            ))
        let major = UInt16(payload[20]) << 8 | UInt16(payload[21])
        let minor = UInt16(payload[22]) << 8 | UInt16(payload[23])
        return IBeacon(
            identity: BeaconIdentity(uuid: uuid, major: major, minor: minor),
            measuredPower: Int8(bitPattern: payload[24]))
    }

    /// Advertising data carrying this iBeacon, after the usual flags structure (`02 01 06`).
    public func advertisingData(includingFlags: Bool = true) -> [UInt8] {
        var data: [UInt8] = includingFlags ? [0x02, 0x01, 0x06] : []
        data += [0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15]
        let uuid = identity.uuid.uuid
        data += [
            uuid.0, uuid.1, uuid.2, uuid.3, uuid.4, uuid.5, uuid.6, uuid.7,
            uuid.8, uuid.9, uuid.10, uuid.11, uuid.12, uuid.13, uuid.14, uuid.15,
        ]
        data.appendBigEndian(identity.major)
        data.appendBigEndian(identity.minor)
        data.append(UInt8(bitPattern: measuredPower))
        return data
    }
}

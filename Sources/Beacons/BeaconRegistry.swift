import Foundation

// MARK: - RegisteredBeacon

/// A beacon ops registered: which café it stands in, its label and its measured power at 1 m.
public struct RegisteredBeacon: Hashable, Sendable, Codable {
    public var identity: BeaconIdentity
    public var cafeID: String
    public var label: String
    /// Calibrated RSSI at 1 m (dBm); used instead of the advertised value.
    public var measuredPower: Int

    public init(identity: BeaconIdentity, cafeID: String, label: String, measuredPower: Int) {
        self.identity = identity
        self.cafeID = cafeID
        self.label = label
        self.measuredPower = measuredPower
    }

    enum CodingKeys: String, CodingKey {
        case uuid, major, minor, cafeId, label, measuredPower
    }

    /// Decodes `{uuid, major, minor, cafeId, label, measuredPower}`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let text = try container.decode(String.self, forKey: .uuid)
        guard let uuid = UUID(uuidString: text) else {
            throw DecodingError.dataCorruptedError(
                forKey: .uuid, in: container, debugDescription: "not a UUID: \(text)")
        }
        identity = BeaconIdentity(
            uuid: uuid, major: try container.decode(UInt16.self, forKey: .major),
            minor: try container.decode(UInt16.self, forKey: .minor))
        cafeID = try container.decode(String.self, forKey: .cafeId)
        label = try container.decodeIfPresent(String.self, forKey: .label) ?? ""
        measuredPower = try container.decode(Int.self, forKey: .measuredPower)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(identity.uuid.uuidString, forKey: .uuid)
        try container.encode(identity.major, forKey: .major)
        try container.encode(identity.minor, forKey: .minor)
        try container.encode(cafeID, forKey: .cafeId)
        try container.encode(label, forKey: .label)
        try container.encode(measuredPower, forKey: .measuredPower)
    }
}

// MARK: - BeaconRegistry

/// The registered beacons, looked up by identity; cafés are numbered for the ranging engine.
public struct BeaconRegistry: Hashable, Sendable {
    public private(set) var beacons: [BeaconIdentity: RegisteredBeacon] = [:]
    /// Café identifiers in first-registered order; the engine refers to cafés by index here.
    public private(set) var cafeIDs: [String] = []
    private var cafeIndexByID: [String: Int] = [:]

    public init(_ beacons: [RegisteredBeacon] = []) {
        for beacon in beacons { register(beacon) }
    }

    /// Adds or replaces a beacon.
    public mutating func register(_ beacon: RegisteredBeacon) {
        beacons[beacon.identity] = beacon
        if cafeIndexByID[beacon.cafeID] == nil {
            cafeIndexByID[beacon.cafeID] = cafeIDs.count
            cafeIDs.append(beacon.cafeID)
        }
    }

    public subscript(identity: BeaconIdentity) -> RegisteredBeacon? { beacons[identity] }

    /// The engine's index of a café.
    public func cafeIndex(of cafeID: String) -> Int? { cafeIndexByID[cafeID] }

    /// Decodes a JSON list of `{uuid, major, minor, cafeId, label, measuredPower}`.
    public init(json: Data) throws {
        self.init(try JSONDecoder().decode([RegisteredBeacon].self, from: json))
    }

    /// Reads a JSON registry file.
    public init(contentsOf url: URL) throws {
        try self.init(json: try Data(contentsOf: url))
    }
}

import CanteenRandom
import Foundation

// MARK: - TraceGenerator

/// Writes synthetic btsnoop captures of a device walking past, or standing near, iBeacons.
///
/// Model: each beacon advertises every `advertisingInterval` seconds plus a random 0–10 ms delay
/// (as BLE does). The received RSSI is the log-distance path loss
/// `measuredPower − 10·n·log10(max(d, 0.1 m))` minus what `radio` adds (shadowing, fading, a body
/// in the way, noise), rounded and clamped to −127…20 dBm, where d is the 2-D distance from the
/// device to the beacon; `radio` also drops a share of the advertisements.
public struct TraceGenerator: Sendable {
    /// A point on the floor, in metres.
    public struct Point: Hashable, Sendable {
        public var x: Double
        public var y: Double
        public init(x: Double, y: Double) {
            self.x = x
            self.y = y
        }

        func distance(to other: Point) -> Double {
            ((x - other.x) * (x - other.x) + (y - other.y) * (y - other.y)).squareRoot()
        }
    }

    /// A beacon placed on the floor.
    public struct PlacedBeacon: Hashable, Sendable {
        public var beacon: IBeacon
        public var address: BluetoothAddress
        public var position: Point
        public init(beacon: IBeacon, address: BluetoothAddress, position: Point) {
            self.beacon = beacon
            self.address = address
            self.position = position
        }
    }

    /// Where the device is over time.
    public enum Path: Hashable, Sendable {
        /// Straight from one point to another at `speed` m/s, then standing at the end for `linger` s.
        case walk(from: Point, to: Point, speed: Double, linger: Double)
        /// Standing at one point.
        case stand(at: Point, duration: Double)

        public var duration: Double {
            switch self {
            case let .walk(from, to, speed, linger): from.distance(to: to) / max(speed, 0.01) + linger
            case let .stand(_, duration): duration
            }
        }

        public func position(at elapsed: Double) -> Point {
            switch self {
            case let .walk(from, to, speed, _):
                let length = from.distance(to: to)
                guard length > 0 else { return from }
                let fraction = min(1, max(0, elapsed * speed / length))
                return Point(x: from.x + (to.x - from.x) * fraction, y: from.y + (to.y - from.y) * fraction)
            case let .stand(at, _):
                return at
            }
        }
    }

    public var beacons: [PlacedBeacon]
    public var path: Path
    public var seed: UInt64
    /// The radio between beacons and phone; the plain Gaussian model unless set.
    public var radio = RadioModel.gaussian
    public var advertisingInterval = 0.1
    /// Reports packed into each LE Advertising Report event (legacy: at most 6; extended: at most 4).
    public var reportsPerEvent = 1
    /// Whether to write LE Extended Advertising Reports instead of legacy ones.
    public var extendedReports = false
    public var start: Date

    public init(
        beacons: [PlacedBeacon], path: Path, seed: UInt64,
        start: Date = Date(timeIntervalSince1970: 1_790_000_000)
    ) {
        self.beacons = beacons
        self.path = path
        self.seed = seed
        self.start = start
    }

    // MARK: - Generating

    /// Calls `body` for every advertisement heard, in time order.
    public func forEachSighting(_ body: (IBeaconSighting) -> Void) {
        guard !beacons.isEmpty else { return }
        var random = SeededRandom(seed: seed)
        var next = beacons.map { _ in Double.random(in: 0..<advertisingInterval, using: &random) }
        let placeExponent = RadioChannel.uniform(in: radio.pathLossExponent, using: &random)
        var channels = beacons.map { _ in RadioChannel(model: radio, placeExponent: placeExponent, using: &random) }
        var bodies = BodyBlocking(model: radio, using: &random)
        let duration = path.duration
        while true {
            var index = 0
            for candidate in next.indices where next[candidate] < next[index] { index = candidate }
            let elapsed = next[index]
            guard elapsed <= duration else { return }
            next[index] += advertisingInterval + Double.random(in: 0..<0.01, using: &random)
            let placed = beacons[index]
            bodies.advance(to: elapsed, channels: &channels, model: radio, using: &random)
            let excess = channels[index].excessLoss(at: elapsed, model: radio, using: &random)
            if channels[index].lossProbability > 0,
                Double.random(in: 0..<1, using: &random) < channels[index].lossProbability
            {
                continue
            }
            let distance = max(0.1, path.position(at: elapsed).distance(to: placed.position))
            let mean = Double(placed.beacon.measuredPower) - 10 * channels[index].exponent * log10(distance)
            let rssi = (mean - excess).rounded()
            let time = start.addingTimeInterval((elapsed * 1_000_000).rounded() / 1_000_000)
            body(
                IBeaconSighting(
                    time: time, address: placed.address, identity: placed.beacon.identity,
                    txPower: placed.beacon.measuredPower, rssi: Int8(min(20, max(-127, rssi)))))
        }
    }

    /// Each beacon's path-loss exponent in this trace, in the order of `beacons`.
    public func pathLossExponents() -> [Double] {
        var random = SeededRandom(seed: seed)
        _ = beacons.map { _ in Double.random(in: 0..<advertisingInterval, using: &random) }
        let placeExponent = RadioChannel.uniform(in: radio.pathLossExponent, using: &random)
        return beacons.map { _ in RadioChannel(model: radio, placeExponent: placeExponent, using: &random).exponent }
    }

    /// Every sighting, in time order.
    public func sightings() -> [IBeaconSighting] {
        var result: [IBeaconSighting] = []
        forEachSighting { result.append($0) }
        return result
    }

    /// The walk as a btsnoop capture of received LE advertising report events.
    public func capture(datalink: BTSnoopDatalink = .linuxMonitor) -> [UInt8] {
        var writer = BTSnoopWriter(datalink: datalink)
        var pending: [IBeaconSighting] = []
        let perEvent = max(1, min(reportsPerEvent, extendedReports ? 4 : 6))
        func flush() {
            guard let first = pending.first else { return }
            writer.append(
                type: .event, direction: .received, date: first.time,
                payload: Self.advertisingReportEvent(pending, extended: extendedReports))
            pending.removeAll(keepingCapacity: true)
        }
        forEachSighting { sighting in
            pending.append(sighting)
            if pending.count == perEvent { flush() }
        }
        flush()
        return writer.bytes
    }

    // MARK: - Event bytes

    /// An LE (Extended) Advertising Report event (no H4 byte) carrying these sightings as iBeacons.
    public static func advertisingReportEvent(_ sightings: [IBeaconSighting], extended: Bool = false) -> [UInt8] {
        var parameters: [UInt8] = [
            extended ? AdvertisingReportParser.extendedSubevent : AdvertisingReportParser.legacySubevent,
            UInt8(truncatingIfNeeded: sightings.count),
        ]
        for sighting in sightings {
            let data = IBeacon(identity: sighting.identity, measuredPower: sighting.txPower).advertisingData()
            let rssi = UInt8(bitPattern: sighting.rssi ?? 127)
            if extended {
                parameters.appendLittleEndian(0x0013)  // legacy ADV_IND as extended: connectable, scannable, legacy
                parameters.append(0)  // public address
                parameters += sighting.address.littleEndianBytes
                parameters += [0x01, 0x00, 0xFF, 0x7F, rssi]  // 1M PHY, no secondary, no SID, TX power n/a
                parameters += [0, 0, 0, 0, 0, 0, 0, 0, 0]  // periodic interval, direct address type and address
                parameters.append(UInt8(data.count))
                parameters += data
            } else {
                parameters += [0x00, 0x00]  // ADV_IND, public address
                parameters += sighting.address.littleEndianBytes
                parameters.append(UInt8(data.count))
                parameters += data
                parameters.append(rssi)
            }
        }
        return [HCIEvent.leMetaCode, UInt8(truncatingIfNeeded: parameters.count)] + parameters
    }
}

import Foundation

/// How a café's kitchen is timed: default prep times per station, and whether an order's
/// tickets are fired so that they finish together.
public struct KitchenSettings: Hashable, Sendable, Codable {
    /// Stations that declare a default prep time for their items (`{"id": "grill", "prepSeconds": 480}`).
    public var stations: [StationSettings]
    /// Whether shorter tickets are held so that an order's tickets finish together (default true).
    public var fireByPrepTime: Bool

    /// No station defaults; firing by prep time on (it only acts once prep times are known).
    public static let standard = KitchenSettings(stations: [], fireByPrepTime: true)

    /// The allowed range of a prep time, in seconds (0 for items served as they are).
    public static let prepSeconds: ClosedRange<Int> = 0...14_400

    public init(stations: [StationSettings], fireByPrepTime: Bool) {
        self.stations = stations
        self.fireByPrepTime = fireByPrepTime
    }

    /// The default prep time of `station`, or nil.
    public func prepSeconds(of station: String) -> Int? {
        stations.first { $0.id == station }?.prepSeconds
    }
}

/// One station's defaults.
public struct StationSettings: Hashable, Sendable, Codable {
    public var id: String
    /// Prep time of the station's items that have none of their own.
    public var prepSeconds: Int

    public init(id: String, prepSeconds: Int) {
        self.id = id
        self.prepSeconds = prepSeconds
    }
}

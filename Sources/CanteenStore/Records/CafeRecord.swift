import CanteenCore
import Foundation
import GRDB

/// A row of `cafe`: a café's configuration and its menu version.
struct CafeRecord: Codable, FetchableRecord, PersistableRecord, SharedJSONColumns {
    static let databaseTableName = "cafe"

    var id: String
    var languages: [String]
    var names: LocalizedText
    var timeZone: String
    var currency: String
    var defaultLocale: String
    var taxRateBasisPoints: Int
    var taxIncluded: Bool
    var hours: [Weekday: [LocalTimeRange]]
    var beaconUUID: String
    var beaconMajor: Int
    var pickupSlotMinutes: Int
    var pickupCapacity: Int
    var pickupCapacityUnit: String
    var pickupLeadMinutes: Int
    var menuVersion: Int64
    var updatedAt: Date

    init(_ cafe: Cafe, menuVersion: Int64, updatedAt: Date) {
        id = cafe.id
        languages = cafe.languages
        names = cafe.names
        timeZone = cafe.timeZone
        currency = cafe.currency
        defaultLocale = cafe.defaultLocale
        taxRateBasisPoints = cafe.tax.rateBasisPoints
        taxIncluded = cafe.tax.included
        hours = cafe.hours
        beaconUUID = cafe.beaconRegion.uuid.uuidString
        beaconMajor = Int(cafe.beaconRegion.major)
        pickupSlotMinutes = cafe.pickup.slotMinutes
        pickupCapacity = cafe.pickup.capacity
        pickupCapacityUnit = cafe.pickup.capacityUnit.rawValue
        pickupLeadMinutes = cafe.pickup.leadMinutes
        self.menuVersion = menuVersion
        self.updatedAt = updatedAt
    }

    /// The café, with the beacons placed in it.
    func cafe(beacons: [BeaconPlacement]) -> Cafe {
        Cafe(id: id, languages: languages, names: names, timeZone: timeZone, currency: currency,
             defaultLocale: defaultLocale,
             tax: TaxPolicy(rateBasisPoints: taxRateBasisPoints, included: taxIncluded),
             hours: hours,
             beaconRegion: BeaconRegion(uuid: UUID(uuidString: beaconUUID) ?? UUID(), major: UInt16(clamping: beaconMajor)),
             beacons: beacons,
             pickup: PickupSchedule(slotMinutes: pickupSlotMinutes, capacity: pickupCapacity,
                                    capacityUnit: PickupSchedule.Unit(rawValue: pickupCapacityUnit) ?? .orders,
                                    leadMinutes: pickupLeadMinutes))
    }
}

import CanteenCore
import CanteenPersistence
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
    var displayTicketWarningMinutes: Int
    var displayTicketLateMinutes: Int
    var displayBoardReadyMinutes: Int
    var networks: [IPAddressRange]
    var displayTicketAllowanceMinutes: Int
    var stations: [StationSettings]
    var fireByPrepTime: Bool
    var menuVersion: Int64
    var updatedAt: Date

    init(_ cafe: Cafe, menuVersion: Int64, updatedAt: Date) {
        id = cafe.id
        languages = cafe.languages
        names = cafe.names
        timeZone = cafe.timeZone.identifier
        currency = cafe.currency.code
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
        displayTicketWarningMinutes = cafe.display.ticketWarningMinutes
        displayTicketLateMinutes = cafe.display.ticketLateMinutes
        displayBoardReadyMinutes = cafe.display.boardReadyMinutes
        networks = cafe.networks
        displayTicketAllowanceMinutes = cafe.display.ticketAllowanceMinutes
        stations = cafe.kitchen.stations
        fireByPrepTime = cafe.kitchen.fireByPrepTime
        self.menuVersion = menuVersion
        self.updatedAt = updatedAt
    }

    /// The café, with the beacons placed in it; a value this version cannot read (an unknown
    /// zone, currency, UUID or capacity unit) is an error naming the row.
    func cafe(beacons: [BeaconPlacement]) throws -> Cafe {
        let invalid = { (problem: String) in StoredRow.invalid(table: Self.databaseTableName, id: id, problem) }
        guard let zone = try? CafeTimeZone(timeZone) else { throw invalid("'\(timeZone)' is not an IANA time zone") }
        guard let currency = try? Currency(code: currency) else {
            throw invalid("'\(currency)' is not an ISO 4217 currency code")
        }
        guard let uuid = UUID(uuidString: beaconUUID) else { throw invalid("'\(beaconUUID)' is not a beacon UUID") }
        guard let major = UInt16(exactly: beaconMajor) else { throw invalid("\(beaconMajor) is not a beacon major") }
        guard let unit = PickupSchedule.Unit(rawValue: pickupCapacityUnit) else {
            throw invalid("'\(pickupCapacityUnit)' is not a capacity unit")
        }
        return Cafe(
            id: id, languages: languages, names: names, timeZone: zone, currency: currency,
            defaultLocale: defaultLocale,
            tax: TaxPolicy(rateBasisPoints: taxRateBasisPoints, included: taxIncluded),
            hours: hours, beaconRegion: BeaconRegion(uuid: uuid, major: major), beacons: beacons,
            pickup: PickupSchedule(
                slotMinutes: pickupSlotMinutes, capacity: pickupCapacity, capacityUnit: unit,
                leadMinutes: pickupLeadMinutes),
            display: DisplaySettings(
                ticketWarningMinutes: displayTicketWarningMinutes,
                ticketLateMinutes: displayTicketLateMinutes,
                boardReadyMinutes: displayBoardReadyMinutes,
                ticketAllowanceMinutes: displayTicketAllowanceMinutes),
            networks: networks,
            kitchen: KitchenSettings(stations: stations, fireByPrepTime: fireByPrepTime))
    }
}

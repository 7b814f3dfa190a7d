import CanteenCore
import CanteenPersistence
import Foundation
import PostgresNIO

/// A row of `cafe`, read and written with the same column meanings as the SQLite `CafeRecord`.
struct CafeRow {
    static let select = """
        SELECT id, languages, names, timeZone, currency, defaultLocale, taxRateBasisPoints, taxIncluded, hours,
            beaconUUID, beaconMajor, pickupSlotMinutes, pickupCapacity, pickupCapacityUnit, pickupLeadMinutes, menuVersion,
            displayTicketWarningMinutes, displayTicketLateMinutes, displayBoardReadyMinutes, networks,
            displayTicketAllowanceMinutes, stations, fireByPrepTime
        FROM cafe
        """

    var id: String
    var languages: String
    var names: String
    var timeZone: String
    var currency: String
    var defaultLocale: String
    var taxRateBasisPoints: Int
    var taxIncluded: Bool
    var hours: String
    var beaconUUID: String
    var beaconMajor: Int
    var pickupSlotMinutes: Int
    var pickupCapacity: Int
    var pickupCapacityUnit: String
    var pickupLeadMinutes: Int
    var menuVersion: Int64
    var displayTicketWarningMinutes: Int
    var displayTicketLateMinutes: Int
    var displayBoardReadyMinutes: Int
    var networks: String
    var displayTicketAllowanceMinutes: Int
    var stations: String
    var fireByPrepTime: Bool

    /// A row of `CafeRow.select`.
    init(_ row: PostgresRow) throws {
        (
            id, languages, names, timeZone, currency, defaultLocale, taxRateBasisPoints, taxIncluded, hours, beaconUUID,
            beaconMajor, pickupSlotMinutes, pickupCapacity, pickupCapacityUnit, pickupLeadMinutes, menuVersion,
            displayTicketWarningMinutes, displayTicketLateMinutes, displayBoardReadyMinutes, networks,
            displayTicketAllowanceMinutes, stations, fireByPrepTime
        ) = try StoredColumns.decode(
            row, table: "cafe",
            (
                String, String, String, String, String, String, Int, Bool,
                String, String, Int, Int, Int, String, Int, Int64,
                Int, Int, Int, String, Int, String, Bool
            ).self)
    }

    /// The scalar columns of `cafe` (JSON columns are written from the café itself).
    init(_ cafe: Cafe) {
        id = cafe.id
        languages = ""
        names = ""
        timeZone = cafe.timeZone.identifier
        currency = cafe.currency.code
        defaultLocale = cafe.defaultLocale
        taxRateBasisPoints = cafe.tax.rateBasisPoints
        taxIncluded = cafe.tax.included
        hours = ""
        beaconUUID = cafe.beaconRegion.uuid.uuidString
        beaconMajor = Int(cafe.beaconRegion.major)
        pickupSlotMinutes = cafe.pickup.slotMinutes
        pickupCapacity = cafe.pickup.capacity
        pickupCapacityUnit = cafe.pickup.capacityUnit.rawValue
        pickupLeadMinutes = cafe.pickup.leadMinutes
        menuVersion = 0
        displayTicketWarningMinutes = cafe.display.ticketWarningMinutes
        displayTicketLateMinutes = cafe.display.ticketLateMinutes
        displayBoardReadyMinutes = cafe.display.boardReadyMinutes
        networks = ""
        displayTicketAllowanceMinutes = cafe.display.ticketAllowanceMinutes
        stations = ""
        fireByPrepTime = cafe.kitchen.fireByPrepTime
    }

    /// The café with its beacons; a value this version cannot read (an unknown zone, currency,
    /// UUID or capacity unit, JSON that does not parse) is an error naming the row.
    func versioned(beacons: [String: [BeaconPlacement]]) throws -> VersionedCafe {
        let invalid = { (problem: String) in StoredRow.invalid(table: "cafe", id: id, problem) }
        let columns = StoredColumns(table: "cafe", id: id)
        guard let zone = try? CafeTimeZone(timeZone) else { throw invalid("'\(timeZone)' is not an IANA time zone") }
        guard let currency = try? Currency(code: currency) else {
            throw invalid("'\(currency)' is not an ISO 4217 currency code")
        }
        guard let uuid = UUID(uuidString: beaconUUID) else { throw invalid("'\(beaconUUID)' is not a beacon UUID") }
        guard let major = UInt16(exactly: beaconMajor) else { throw invalid("\(beaconMajor) is not a beacon major") }
        guard let unit = PickupSchedule.Unit(rawValue: pickupCapacityUnit) else {
            throw invalid("'\(pickupCapacityUnit)' is not a capacity unit")
        }
        let cafe = Cafe(
            id: id, languages: try columns.json(languages, "languages"), names: try columns.json(names, "names"),
            timeZone: zone, currency: currency, defaultLocale: defaultLocale,
            tax: TaxPolicy(rateBasisPoints: taxRateBasisPoints, included: taxIncluded),
            hours: try columns.json(hours, "hours"), beaconRegion: BeaconRegion(uuid: uuid, major: major),
            beacons: beacons[id] ?? [],
            pickup: PickupSchedule(
                slotMinutes: pickupSlotMinutes, capacity: pickupCapacity, capacityUnit: unit,
                leadMinutes: pickupLeadMinutes),
            display: DisplaySettings(
                ticketWarningMinutes: displayTicketWarningMinutes,
                ticketLateMinutes: displayTicketLateMinutes,
                boardReadyMinutes: displayBoardReadyMinutes,
                ticketAllowanceMinutes: displayTicketAllowanceMinutes),
            networks: try columns.json(networks, "networks"),
            kitchen: KitchenSettings(stations: try columns.json(stations, "stations"), fireByPrepTime: fireByPrepTime))
        return VersionedCafe(cafe: cafe, menuVersion: menuVersion)
    }
}

/// A row of `beacon` (`uuid, major, minor, cafeId, label, measuredPower`).
struct BeaconRow {
    var uuid: String
    var major: Int
    var minor: Int
    var cafeId: String
    var label: String
    var measuredPower: Int

    init(_ row: PostgresRow) throws {
        (uuid, major, minor, cafeId, label, measuredPower) = try StoredColumns.decode(
            row, table: "beacon", (String, Int, Int, String, String, Int).self)
    }

    /// The row as a registration; an identity that does not parse is an error naming the row.
    func registration() throws -> BeaconRegistration {
        guard let parsed = UUID(uuidString: uuid), let major = UInt16(exactly: major),
            let minor = UInt16(exactly: minor)
        else {
            throw StoredRow.invalid(
                table: "beacon", id: "\(uuid)/\(major)/\(minor)",
                "not a beacon identity (UUID, 16-bit major and minor)")
        }
        return BeaconRegistration(
            uuid: parsed, major: major, minor: minor, cafeID: cafeId, label: label,
            measuredPower: measuredPower)
    }
}

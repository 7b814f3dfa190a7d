import Foundation

/// A café's configuration: where it is, what it charges in, when it is open, how it is found.
public struct Cafe: Hashable, Sendable, Codable {
    /// Stable identifier used in URLs (`tokyo-shibuya`).
    public var id: String
    /// Languages every text of this café is written in; the first is its own.
    public var languages: [String]
    public var names: LocalizedText
    /// Where the café's clocks are: every schedule is in its local time.
    public var timeZone: CafeTimeZone
    /// The currency of every price at this café.
    public var currency: Currency
    /// The locale used when a reader does not say which they want (`ja_JP`).
    public var defaultLocale: String
    public var tax: TaxPolicy
    /// Opening hours per weekday; a day not listed is closed.
    public var hours: [Weekday: [LocalTimeRange]]
    public var beaconRegion: BeaconRegion
    /// The café's iBeacons (minor = station), with their measured power at 1 m.
    public var beacons: [BeaconPlacement]
    public var pickup: PickupSchedule
    /// How the café's screens behave (kitchen display age colours, pickup board).
    public var display: DisplaySettings
    /// The networks of the café's building: a browser whose address is inside one is "nearest" to it.
    public var networks: [IPAddressRange]
    /// Station prep times and firing by prep time.
    public var kitchen: KitchenSettings

    public init(
        id: String, languages: [String], names: LocalizedText, timeZone: CafeTimeZone,
        currency: Currency, defaultLocale: String, tax: TaxPolicy,
        hours: [Weekday: [LocalTimeRange]], beaconRegion: BeaconRegion,
        beacons: [BeaconPlacement], pickup: PickupSchedule, display: DisplaySettings = .standard,
        networks: [IPAddressRange] = [], kitchen: KitchenSettings = .standard
    ) {
        self.id = id
        self.languages = languages
        self.names = names
        self.timeZone = timeZone
        self.currency = currency
        self.defaultLocale = defaultLocale
        self.tax = tax
        self.hours = hours
        self.beaconRegion = beaconRegion
        self.beacons = beacons
        self.pickup = pickup
        self.display = display
        self.networks = networks
        self.kitchen = kitchen
    }

    /// The café's time zone as Foundation's.
    public var timeZoneValue: TimeZone { timeZone.zone }

    /// A Gregorian calendar in the café's time zone (built once with the zone).
    public var calendar: Calendar { timeZone.calendar }

    /// The weekday and wall-clock time at `instant` in the café's time zone.
    public func localMoment(of instant: Date) -> (weekday: Weekday, time: LocalTime) {
        let parts = calendar.dateComponents([.weekday, .hour, .minute], from: instant)
        return (
            Weekday(gregorianWeekday: parts.weekday ?? 1),
            LocalTime(hour: parts.hour ?? 0, minute: parts.minute ?? 0)
        )
    }

    /// Whether the café is open at `instant`.
    public func isOpen(at instant: Date) -> Bool {
        let moment = localMoment(of: instant)
        return (hours[moment.weekday] ?? []).contains { $0.contains(moment.time) }
    }
}

/// How tax applies at a café: a rate in basis points (825 = 8.25 %), prices with or without it.
public struct TaxPolicy: Hashable, Sendable, Codable {
    public var rateBasisPoints: Int
    /// True when menu prices already include tax (Japan, most of Europe).
    public var included: Bool

    public init(rateBasisPoints: Int, included: Bool) {
        self.rateBasisPoints = rateBasisPoints
        self.included = included
    }
}

/// The iBeacon region of a café: the company's proximity UUID and the café's major.
public struct BeaconRegion: Hashable, Sendable, Codable {
    public var uuid: UUID
    public var major: UInt16

    public init(uuid: UUID, major: UInt16) {
        self.uuid = uuid
        self.major = major
    }
}

/// One beacon placed in a café: its minor (the station) and its measured power at 1 m.
public struct BeaconPlacement: Hashable, Sendable, Codable {
    public var minor: UInt16
    public var label: String
    public var measuredPower: Int

    public init(minor: UInt16, label: String, measuredPower: Int) {
        self.minor = minor
        self.label = label
        self.measuredPower = measuredPower
    }
}

/// How a café hands out pickup windows.
public struct PickupSchedule: Hashable, Sendable, Codable {
    /// What capacity counts.
    public enum Unit: String, Hashable, Sendable, Codable { case orders, items }

    public var slotMinutes: Int
    public var capacity: Int
    public var capacityUnit: Unit
    /// The earliest window starts this many minutes from now.
    public var leadMinutes: Int

    public init(slotMinutes: Int, capacity: Int, capacityUnit: Unit, leadMinutes: Int) {
        self.slotMinutes = slotMinutes
        self.capacity = capacity
        self.capacityUnit = capacityUnit
        self.leadMinutes = leadMinutes
    }
}

/// How a café's screens behave: when a ticket's age timer on the kitchen display turns amber
/// (warning) and red (late), and how long a ready order stays on the pickup board.
///
/// A ticket with a prep time is timed against its own target instead: amber once its age (from
/// when it fired) passes its prep time, red once it passes its prep time plus the allowance.
/// The fixed warning and late minutes apply to tickets without a prep time.
public struct DisplaySettings: Hashable, Sendable, Codable {
    public var ticketWarningMinutes: Int
    public var ticketLateMinutes: Int
    /// A ready order leaves the pickup board when it is picked up or after this many minutes.
    public var boardReadyMinutes: Int
    /// Minutes a ticket may run past its prep time before it shows as late.
    public var ticketAllowanceMinutes: Int

    /// 5 and 8 minutes (the thresholds kitchen displays commonly default to), 10 on the board,
    /// 3 minutes' allowance past a ticket's prep time (the gap between those two thresholds).
    public static let standard = DisplaySettings(
        ticketWarningMinutes: 5, ticketLateMinutes: 8, boardReadyMinutes: 10,
        ticketAllowanceMinutes: 3)

    /// The allowed range of every setting, in minutes.
    public static let minutes: ClosedRange<Int> = 1...240

    public init(
        ticketWarningMinutes: Int, ticketLateMinutes: Int, boardReadyMinutes: Int,
        ticketAllowanceMinutes: Int = 3
    ) {
        self.ticketWarningMinutes = ticketWarningMinutes
        self.ticketLateMinutes = ticketLateMinutes
        self.boardReadyMinutes = boardReadyMinutes
        self.ticketAllowanceMinutes = ticketAllowanceMinutes
    }
}

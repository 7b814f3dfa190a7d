import CanteenJSON
import Foundation

/// Reads and validates café files (`Menus/*.json`) and the ops API's café and menu bodies.
///
/// One file holds a café's configuration and its menu side by side (`currency`, `items`, …).
/// Every problem is reported with its JSON path; nothing is returned unless the whole
/// document is valid.
public enum CafeDocument {
    /// Fields that belong to the menu part of a café file.
    public static let menuFields: Set<String> = ["dayParts", "categories", "items"]

    /// A whole café file: configuration and menu.
    public static func parse(_ value: JSONValue) throws(ValidationError) -> (cafe: Cafe, menu: Menu) {
        try read(value) { reader in
            let cafe = readCafe(&reader, expectedID: nil)
            let menu = readMenu(&reader, cafe: cafe)
            guard let cafe, let menu else { return nil }
            return (cafe, menu)
        }
    }

    /// A café's configuration alone (`PUT /v1/cafes/{id}`); `id` may be omitted from the body.
    public static func parseCafe(_ value: JSONValue, id: String) throws(ValidationError) -> Cafe {
        try read(value) { reader in readCafe(&reader, expectedID: id) }
    }

    /// A menu alone (`PUT /v1/cafes/{id}/menu`), checked against its café.
    public static func parseMenu(_ value: JSONValue, cafe: Cafe) throws(ValidationError) -> Menu {
        try read(value) { reader in readMenu(&reader, cafe: cafe) }
    }

    /// Runs `body` over the document's top-level object, reports unknown fields, and returns
    /// its result only when no problem was found anywhere.
    private static func read<T>(
        _ value: JSONValue,
        _ body: (inout JSONObjectReader) -> T?
    ) throws(ValidationError) -> T {
        let problems = ValidationProblems()
        guard var reader = JSONObjectReader(value, path: "", problems: problems) else {
            throw ValidationError(problems: problems.all)
        }
        let result = body(&reader)
        reader.finish()
        try problems.throwIfAny()
        guard let result else {
            throw ValidationError(problems: [ValidationProblem(path: "", message: "invalid document")])
        }
        return result
    }

    // MARK: - Café

    static func readCafe(_ reader: inout JSONObjectReader, expectedID: String?) -> Cafe? {
        let problems = reader.problems
        let before = problems.all.count
        var id: String?
        if let expectedID {
            id = expectedID
            if let given = reader.string("id", required: false), given != expectedID {
                problems.add(reader.childPath("id"), "'\(given)' does not match the café in the URL ('\(expectedID)')")
            }
        } else {
            id = readIdentifier(&reader, "id")
        }
        let languages = readLanguages(&reader)
        let names = readText(&reader, "names", languages: languages)
        var timeZone: CafeTimeZone?
        if let identifier = reader.string("timeZone") {
            do {
                timeZone = try CafeTimeZone(identifier)
            } catch {
                problems.add(reader.childPath("timeZone"), error.message, code: .unknownTimeZone)
            }
        }
        var currency: Currency?
        if let code = reader.string("currency") {
            do {
                currency = try Currency(code: code)
            } catch {
                problems.add(
                    reader.childPath("currency"), "'\(code)' is not an active ISO 4217 currency code",
                    code: .unknownCurrency)
            }
        }
        let defaultLocale = reader.string("defaultLocale")
        if let defaultLocale, !LanguageTag.isWellFormed(defaultLocale) {
            problems.add(
                reader.childPath("defaultLocale"),
                "'\(defaultLocale)' is not a locale identifier such as en_US or ja-JP")
        }
        let tax = readTax(&reader)
        let hours = readHours(&reader)
        let region = readRegion(&reader)
        let beacons = readBeacons(&reader)
        let pickup = readPickup(&reader)
        let display = readDisplay(&reader)
        let networks = readNetworks(&reader)
        let kitchen = readKitchen(&reader)
        guard problems.all.count == before, let id, let languages, let names, let timeZone, let currency,
            let defaultLocale, let tax, let hours, let region, let beacons, let pickup, let display, let networks,
            let kitchen
        else { return nil }
        return Cafe(
            id: id, languages: languages, names: names, timeZone: timeZone, currency: currency,
            defaultLocale: defaultLocale, tax: tax, hours: hours, beaconRegion: region,
            beacons: beacons, pickup: pickup, display: display, networks: networks, kitchen: kitchen)
    }

    private static func readLanguages(_ reader: inout JSONObjectReader) -> [String]? {
        let path = reader.childPath("languages")
        guard let values = reader.array("languages") else { return nil }
        var languages: [String] = []
        for (index, value) in values.enumerated() {
            guard let language = value.stringValue, LanguageTag.isWellFormed(language) else {
                reader.problems.add("\(path)[\(index)]", "expected a language code such as \"en\" or \"zh-Hans\"")
                continue
            }
            if languages.contains(language) {
                reader.problems.add("\(path)[\(index)]", "duplicate language '\(language)'", code: .duplicateId)
            }
            languages.append(language)
        }
        if values.isEmpty { reader.problems.add(path, "must list at least one language") }
        return languages
    }

    private static func readTax(_ reader: inout JSONObjectReader) -> TaxPolicy? {
        guard var tax = reader.object("tax") else { return nil }
        let rate = tax.integer("rateBasisPoints", in: 0...10_000)
        let included = tax.bool("included")
        tax.finish()
        guard let rate, let included else { return nil }
        return TaxPolicy(rateBasisPoints: Int(rate), included: included)
    }

    private static func readHours(_ reader: inout JSONObjectReader) -> [Weekday: [LocalTimeRange]]? {
        guard let hoursReader = reader.object("hours") else { return nil }
        var hours: [Weekday: [LocalTimeRange]] = [:]
        var failed = false
        for key in hoursReader.keys {
            let dayPath = hoursReader.childPath(key)
            guard let day = Weekday(rawValue: key) else {
                reader.problems.add(dayPath, "unknown weekday; expected monday … sunday", code: .unknownField)
                failed = true
                continue
            }
            var dayReader = hoursReader
            var ranges: [LocalTimeRange] = []
            for (path, value) in dayReader.elements(key) {
                guard var span = JSONObjectReader(value, path: path, problems: reader.problems) else {
                    failed = true; continue
                }
                let open = readTime(&span, "open")
                let close = readTime(&span, "close")
                span.finish()
                guard let open, let close else { failed = true; continue }
                guard open < close else {
                    reader.problems.add(path, "closes at \(close), not after it opens at \(open)")
                    failed = true
                    continue
                }
                let range = LocalTimeRange(start: open, end: close)
                if ranges.contains(where: { $0.start < range.end && range.start < $0.end }) {
                    reader.problems.add(path, "overlaps another opening span of \(key)")
                    failed = true
                }
                ranges.append(range)
            }
            hours[day] = ranges.sorted { $0.start < $1.start }
        }
        return failed ? nil : hours
    }

    private static func readRegion(_ reader: inout JSONObjectReader) -> BeaconRegion? {
        guard var region = reader.object("beaconRegion") else { return nil }
        let uuid = readUUID(&region, "uuid")
        let major = region.integer("major", in: 0...65_535)
        region.finish()
        guard let uuid, let major else { return nil }
        return BeaconRegion(uuid: uuid, major: UInt16(major))
    }

    private static func readBeacons(_ reader: inout JSONObjectReader) -> [BeaconPlacement]? {
        var beacons: [BeaconPlacement] = []
        var failed = false
        var seen: Set<Int64> = []
        for (path, value) in reader.elements("beacons", required: false) {
            guard var beacon = JSONObjectReader(value, path: path, problems: reader.problems) else {
                failed = true; continue
            }
            let minor = beacon.integer("minor", in: 0...65_535)
            let label = beacon.string("label")
            let powers = BeaconRegistration.measuredPowerRange
            let power = beacon.integer("measuredPower", in: Int64(powers.lowerBound)...Int64(powers.upperBound))
            beacon.finish()
            guard let minor, let label, let power else { failed = true; continue }
            if !seen.insert(minor).inserted {
                reader.problems.add(beacon.childPath("minor"), "duplicate beacon minor \(minor)", code: .duplicateId)
                failed = true
            }
            beacons.append(BeaconPlacement(minor: UInt16(minor), label: label, measuredPower: Int(power)))
        }
        return failed ? nil : beacons
    }

    private static func readPickup(_ reader: inout JSONObjectReader) -> PickupSchedule? {
        guard var pickup = reader.object("pickup") else { return nil }
        let slot = pickup.integer("slotMinutes", in: 5...240)
        let capacity = pickup.integer("capacity", in: 1...100_000)
        let unitText = pickup.string("capacityUnit")
        let unit = unitText.flatMap(PickupSchedule.Unit.init(rawValue:))
        if let unitText, unit == nil {
            pickup.problems.add(pickup.childPath("capacityUnit"), "'\(unitText)' is not one of orders, items")
        }
        let lead = pickup.integer("leadMinutes", in: 0...1_440)
        pickup.finish()
        if let slot, 1_440 % slot != 0 {
            pickup.problems.add(pickup.childPath("slotMinutes"), "\(slot) does not divide a day evenly")
            return nil
        }
        guard let slot, let capacity, let unit, let lead else { return nil }
        return PickupSchedule(
            slotMinutes: Int(slot), capacity: Int(capacity), capacityUnit: unit, leadMinutes: Int(lead))
    }

    /// Optional `display`; each missing field keeps its standard value.
    private static func readDisplay(_ reader: inout JSONObjectReader) -> DisplaySettings? {
        guard reader.value("display", required: false) != nil else { return .standard }
        guard var display = reader.object("display") else { return nil }
        let range = Int64(DisplaySettings.minutes.lowerBound)...Int64(DisplaySettings.minutes.upperBound)
        let before = display.problems.all.count
        var settings = DisplaySettings.standard
        if let minutes = display.integer("ticketWarningMinutes", required: false, in: range) {
            settings.ticketWarningMinutes = Int(minutes)
        }
        if let minutes = display.integer("ticketLateMinutes", required: false, in: range) {
            settings.ticketLateMinutes = Int(minutes)
        }
        if let minutes = display.integer("boardReadyMinutes", required: false, in: range) {
            settings.boardReadyMinutes = Int(minutes)
        }
        if let minutes = display.integer("ticketAllowanceMinutes", required: false, in: range) {
            settings.ticketAllowanceMinutes = Int(minutes)
        }
        display.finish()
        guard display.problems.all.count == before else { return nil }
        guard settings.ticketWarningMinutes < settings.ticketLateMinutes else {
            display.problems.add(
                display.childPath("ticketLateMinutes"),
                "\(settings.ticketLateMinutes) must be more than ticketWarningMinutes (\(settings.ticketWarningMinutes))"
            )
            return nil
        }
        return settings
    }

    /// Optional `stations` (each `{"id", "prepSeconds"}`, ids unique) and `fireByPrepTime`
    /// (default true).
    private static func readKitchen(_ reader: inout JSONObjectReader) -> KitchenSettings? {
        var settings = KitchenSettings.standard
        var failed = false
        var seen: Set<String> = []
        let range = Int64(KitchenSettings.prepSeconds.lowerBound)...Int64(KitchenSettings.prepSeconds.upperBound)
        for (path, value) in reader.elements("stations", required: false) {
            guard var station = JSONObjectReader(value, path: path, problems: reader.problems) else {
                failed = true
                continue
            }
            let id = readIdentifier(&station, "id")
            let prep = station.integer("prepSeconds", in: range)
            station.finish()
            if let id, !seen.insert(id).inserted {
                reader.problems.add(station.childPath("id"), "duplicate station id '\(id)'", code: .duplicateId)
                failed = true
            }
            guard let id, let prep else { failed = true; continue }
            settings.stations.append(StationSettings(id: id, prepSeconds: Int(prep)))
        }
        if let fire = reader.bool("fireByPrepTime", required: false) { settings.fireByPrepTime = fire }
        return failed ? nil : settings
    }
}

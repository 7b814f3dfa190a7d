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
    private static func read<T>(_ value: JSONValue,
                                _ body: (inout JSONObjectReader) -> T?) throws(ValidationError) -> T {
        let problems = ValidationProblems()
        guard var reader = JSONObjectReader(value, path: "", problems: problems) else {
            throw ValidationError(problems: problems.all)
        }
        let result = body(&reader)
        reader.finish()
        try problems.throwIfAny()
        guard let result else { throw ValidationError(problems: [ValidationProblem(path: "", message: "invalid document")]) }
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
        let timeZone = reader.string("timeZone")
        if let timeZone, !isKnownTimeZone(timeZone) {
            problems.add(reader.childPath("timeZone"), "'\(timeZone)' is not an IANA time zone", code: "unknown_time_zone")
        }
        let currency = reader.string("currency")
        if let currency, !Currency.isKnown(currency) {
            problems.add(reader.childPath("currency"), "'\(currency)' is not an active ISO 4217 currency code",
                         code: "unknown_currency")
        }
        let defaultLocale = reader.string("defaultLocale")
        if let defaultLocale, !LanguageTag.isWellFormed(defaultLocale) {
            problems.add(reader.childPath("defaultLocale"), "'\(defaultLocale)' is not a locale identifier such as en_US or ja-JP")
        }
        let tax = readTax(&reader)
        let hours = readHours(&reader)
        let region = readRegion(&reader)
        let beacons = readBeacons(&reader)
        let pickup = readPickup(&reader)
        guard problems.all.count == before, let id, let languages, let names, let timeZone, let currency,
              let defaultLocale, let tax, let hours, let region, let beacons, let pickup
        else { return nil }
        return Cafe(id: id, languages: languages, names: names, timeZone: timeZone, currency: currency,
                    defaultLocale: defaultLocale, tax: tax, hours: hours, beaconRegion: region,
                    beacons: beacons, pickup: pickup)
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
                reader.problems.add("\(path)[\(index)]", "duplicate language '\(language)'", code: "duplicate_id")
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
                reader.problems.add(dayPath, "unknown weekday; expected monday … sunday", code: "unknown_field")
                failed = true
                continue
            }
            var dayReader = hoursReader
            var ranges: [LocalTimeRange] = []
            for (path, value) in dayReader.elements(key) {
                guard var span = JSONObjectReader(value, path: path, problems: reader.problems) else { failed = true; continue }
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
            guard var beacon = JSONObjectReader(value, path: path, problems: reader.problems) else { failed = true; continue }
            let minor = beacon.integer("minor", in: 0...65_535)
            let label = beacon.string("label")
            let power = beacon.integer("measuredPower", in: -127...20)
            beacon.finish()
            guard let minor, let label, let power else { failed = true; continue }
            if !seen.insert(minor).inserted {
                reader.problems.add(beacon.childPath("minor"), "duplicate beacon minor \(minor)", code: "duplicate_id")
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
        return PickupSchedule(slotMinutes: Int(slot), capacity: Int(capacity), capacityUnit: unit, leadMinutes: Int(lead))
    }

    // MARK: - Menu

    static func readMenu(_ reader: inout JSONObjectReader, cafe: Cafe?) -> Menu? {
        let problems = reader.problems
        let before = problems.all.count
        let languages = cafe?.languages
        let currency = cafe.flatMap { try? Currency(code: $0.currency) }

        var dayParts: [DayPart] = []
        var dayPartIDs: Set<String> = []
        for (path, value) in reader.elements("dayParts", required: false) {
            guard var part = JSONObjectReader(value, path: path, problems: problems) else { continue }
            let id = readIdentifier(&part, "id")
            let names = readText(&part, "names", languages: languages)
            let start = readTime(&part, "start")
            let end = readTime(&part, "end")
            part.finish()
            guard let id, let names, let start, let end else { continue }
            if !dayPartIDs.insert(id).inserted {
                problems.add(part.childPath("id"), "duplicate day part id '\(id)'", code: "duplicate_id")
            }
            guard start < end else {
                problems.add(path, "ends at \(end), not after it starts at \(start)")
                continue
            }
            let dayPart = DayPart(id: id, names: names, start: start, end: end)
            if let cafe, !cafe.hours.values.contains(where: { $0.contains { $0.contains(dayPart.range) } }) {
                problems.add(path, "\(start)–\(end) is outside the opening hours of every day",
                             code: "day_part_outside_hours")
            }
            dayParts.append(dayPart)
        }

        var categories: [MenuCategory] = []
        var categoryIDs: Set<String> = []
        for (path, value) in reader.elements("categories") {
            guard var category = JSONObjectReader(value, path: path, problems: problems) else { continue }
            let id = readIdentifier(&category, "id")
            let names = readText(&category, "names", languages: languages)
            category.finish()
            guard let id, let names else { continue }
            if !categoryIDs.insert(id).inserted {
                problems.add(category.childPath("id"), "duplicate category id '\(id)'", code: "duplicate_id")
            }
            categories.append(MenuCategory(id: id, names: names))
        }

        var items: [MenuItem] = []
        var itemIDs: Set<String> = []
        for (path, value) in reader.elements("items") {
            guard var item = JSONObjectReader(value, path: path, problems: problems) else { continue }
            let id = readIdentifier(&item, "id")
            if let id, !itemIDs.insert(id).inserted {
                problems.add(item.childPath("id"), "duplicate item id '\(id)'", code: "duplicate_id")
            }
            let category = item.string("category")
            if let category, !categoryIDs.contains(category) {
                problems.add(item.childPath("category"), "no category with id '\(category)'", code: "unknown_reference")
            }
            let names = readText(&item, "names", languages: languages)
            let descriptions = readText(&item, "descriptions", languages: languages)
            let price = readMinorUnits(&item, "price", currency: currency, allowNegative: false)
            let station = readIdentifier(&item, "station")
            let allergens = readStrings(&item, "allergens", required: true)
            let parts = readStrings(&item, "dayParts", required: false) ?? []
            for (index, part) in parts.enumerated() where !dayPartIDs.contains(part) {
                problems.add("\(item.childPath("dayParts"))[\(index)]", "no day part with id '\(part)'", code: "unknown_reference")
            }
            let groups = readModifierGroups(&item, languages: languages, currency: currency)
            item.finish()
            guard let id, let category, let names, let descriptions, let price, let station, let allergens,
                  let groups else { continue }
            items.append(MenuItem(id: id, category: category, names: names, descriptions: descriptions,
                                  price: price, station: station, allergens: allergens, dayParts: parts,
                                  modifierGroups: groups))
        }
        guard problems.all.count == before else { return nil }
        return Menu(dayParts: dayParts, categories: categories, items: items)
    }

    private static func readModifierGroups(_ reader: inout JSONObjectReader, languages: [String]?,
                                           currency: Currency?) -> [ModifierGroup]? {
        var groups: [ModifierGroup] = []
        var ids: Set<String> = []
        var failed = false
        for (path, value) in reader.elements("modifierGroups", required: false) {
            guard var group = JSONObjectReader(value, path: path, problems: reader.problems) else { failed = true; continue }
            let id = readIdentifier(&group, "id")
            if let id, !ids.insert(id).inserted {
                reader.problems.add(group.childPath("id"), "duplicate modifier group id '\(id)'", code: "duplicate_id")
                failed = true
            }
            let names = readText(&group, "names", languages: languages)
            let min = group.integer("min", in: 0...99)
            let max = group.integer("max", in: 1...99)
            var options: [ModifierOption] = []
            var optionIDs: Set<String> = []
            for (optionPath, optionValue) in group.elements("options") {
                guard var option = JSONObjectReader(optionValue, path: optionPath, problems: reader.problems) else {
                    failed = true
                    continue
                }
                let optionID = readIdentifier(&option, "id")
                if let optionID, !optionIDs.insert(optionID).inserted {
                    reader.problems.add(option.childPath("id"), "duplicate option id '\(optionID)'", code: "duplicate_id")
                    failed = true
                }
                let optionNames = readText(&option, "names", languages: languages)
                let delta = readMinorUnits(&option, "priceDelta", currency: currency, allowNegative: true)
                option.finish()
                guard let optionID, let optionNames, let delta else { failed = true; continue }
                options.append(ModifierOption(id: optionID, names: optionNames, priceDelta: delta))
            }
            group.finish()
            if let min, let max, min > max {
                reader.problems.add(group.childPath("min"), "min \(min) is greater than max \(max)", code: "min_exceeds_max")
                failed = true
            }
            if let min, min > options.count {
                reader.problems.add(group.childPath("min"), "min \(min) is more than the \(options.count) options offered")
                failed = true
            }
            guard let id, let names, let min, let max else { failed = true; continue }
            groups.append(ModifierGroup(id: id, names: names, min: Int(min), max: Int(max), options: options))
        }
        return failed ? nil : groups
    }

    // MARK: - Fields

    static func readIdentifier(_ reader: inout JSONObjectReader, _ key: String) -> String? {
        guard let id = reader.string(key) else { return nil }
        guard Identifier.isValid(id) else {
            reader.problems.add(reader.childPath(key), "'\(id)' is not an id: use 1–64 of a-z, 0-9, '-' and '_'")
            return nil
        }
        return id
    }

    /// A map of language → text that must hold every language the café declares.
    static func readText(_ reader: inout JSONObjectReader, _ key: String, languages: [String]?) -> LocalizedText? {
        guard let textReader = reader.object(key) else { return nil }
        var translations: [String: String] = [:]
        var failed = false
        for language in textReader.keys {
            var copy = textReader
            guard let text = copy.string(language) else { failed = true; continue }
            translations[language] = text
        }
        if let languages {
            for language in languages where translations[language] == nil {
                reader.problems.add(textReader.childPath(language), "missing the '\(language)' translation",
                                    code: "missing_translation")
                failed = true
            }
            for language in translations.keys.sorted() where !languages.contains(language) {
                reader.problems.add(textReader.childPath(language),
                                    "'\(language)' is not one of the café's languages \(languages)")
                failed = true
            }
        }
        return failed ? nil : LocalizedText(translations)
    }

    static func readTime(_ reader: inout JSONObjectReader, _ key: String) -> LocalTime? {
        guard let text = reader.string(key) else { return nil }
        guard let time = LocalTime(parsing: text) else {
            reader.problems.add(reader.childPath(key), "'\(text)' is not a time of day HH:MM")
            return nil
        }
        return time
    }

    static func readUUID(_ reader: inout JSONObjectReader, _ key: String) -> UUID? {
        guard let text = reader.string(key) else { return nil }
        guard let uuid = UUID(uuidString: text) else {
            reader.problems.add(reader.childPath(key), "'\(text)' is not a UUID")
            return nil
        }
        return uuid
    }

    static func readStrings(_ reader: inout JSONObjectReader, _ key: String, required: Bool) -> [String]? {
        guard let values = reader.array(key, required: required) else { return nil }
        var strings: [String] = []
        for (index, value) in values.enumerated() {
            guard let string = value.stringValue, !string.isEmpty else {
                reader.problems.add("\(reader.childPath(key))[\(index)]", "expected a non-empty string, found \(value.typeName)")
                return nil
            }
            strings.append(string)
        }
        return strings
    }

    /// A price in whole minor units of the café's currency.
    static func readMinorUnits(_ reader: inout JSONObjectReader, _ key: String, currency: Currency?,
                               allowNegative: Bool) -> Int64? {
        let fractional = currency.map(fractionalMessage)
        let range: ClosedRange<Int64> = allowNegative ? (-1_000_000_000_000)...1_000_000_000_000 : 0...1_000_000_000_000
        return reader.integer(key, in: range, fractionalMessage: fractional)
    }

    public static func fractionalMessage(_ currency: Currency) -> String {
        if currency.minorUnits == 0 { return "\(currency.code) has no minor units; expected a whole number" }
        let unit = [1: "tenths", 2: "hundredths", 3: "thousandths", 4: "ten-thousandths"][currency.minorUnits] ?? "minor units"
        return "\(currency.code) prices are whole minor units (\(unit)); expected a whole number"
    }

    private static let knownTimeZones = Set(TimeZone.knownTimeZoneIdentifiers)

    static func isKnownTimeZone(_ identifier: String) -> Bool {
        knownTimeZones.contains(identifier) || identifier == "UTC"
    }
}

/// Identifiers used in URLs: 1–64 of `a-z 0-9 - _`, starting with a letter or digit.
public enum Identifier {
    public static func isValid(_ id: String) -> Bool {
        guard (1...64).contains(id.utf8.count), let first = id.utf8.first else { return false }
        let isLowerOrDigit: (UInt8) -> Bool = { (97...122).contains($0) || (48...57).contains($0) }
        return isLowerOrDigit(first) && id.utf8.allSatisfy { isLowerOrDigit($0) || $0 == 45 || $0 == 95 }
    }
}

/// Syntax checks for BCP 47 language tags and POSIX-style locale identifiers.
public enum LanguageTag {
    /// `en`, `zh-Hans`, `es_UY`, `ar-EG-u-nu-latn`: letters and digits in 1–8 character subtags.
    public static func isWellFormed(_ tag: String) -> Bool {
        let subtags = tag.split(separator: "-", omittingEmptySubsequences: false)
            .flatMap { $0.split(separator: "_", omittingEmptySubsequences: false) }
        guard let language = subtags.first, (2...3).contains(language.count),
              language.allSatisfy({ $0.isASCII && $0.isLetter }) else { return false }
        return subtags.dropFirst().allSatisfy { (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }
}

import CanteenCore
import CanteenFormat
import Foundation
import Testing

/// A café's time zone is any zone name of the system's tzdata, stored as given and rendered as
/// ICU renders its alias (`Asia/Kolkata` as `Asia/Calcutta`); abbreviations and offsets are not
/// zone names.
@Suite("Time zone names: every tzdata zone, no abbreviations or offsets")
struct TimeZoneNamesTests {
    /// The zone names of the system's tzdata: every TZif file under /usr/share/zoneinfo but the
    /// `posix/` and `right/` copies, the fixed offsets of `Etc/`, and `localtime`/`posixrules`
    /// (this machine's zone and the POSIX default, not names of places).
    static let systemZones: [String] = {
        let root = URL(fileURLWithPath: "/usr/share/zoneinfo")
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        var names: [String] = []
        for case let url as URL in walker {
            let name = String(url.path.dropFirst(root.path.count + 1))
            if ["posix", "right", "Etc"].contains(name) {
                walker.skipDescendants()
                continue
            }
            guard !["localtime", "posixrules"].contains(name),
                let handle = try? FileHandle(forReadingFrom: url),
                let magic = try? handle.read(upToCount: 4)
            else { continue }
            try? handle.close()
            if magic == Data("TZif".utf8) { names.append(name) }
        }
        return names.sorted()
    }()

    /// tzdata's names that are abbreviations (`EST`, `CET`, …), POSIX rules (`PST8PDT`), offsets
    /// (`GMT+0`) or the placeholder `Factory`: refused, each with its reason.
    static let refusedSystemNames: Set<String> = [
        "CET", "CST6CDT", "EET", "EST", "EST5EDT", "Factory", "GMT+0", "GMT-0", "GMT0", "HST", "MET", "MST",
        "MST7MDT", "PST8PDT", "UCT", "WET",
    ]

    /// Each tzdata name and the zone its links lead to (tzdata.zi: `L TARGET NAME`).
    static let linkTargets: [String: String] = {
        guard let text = try? String(contentsOfFile: "/usr/share/zoneinfo/tzdata.zi", encoding: .utf8) else {
            return [:]
        }
        var targets: [String: String] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("L ") {
            let parts = line.split(separator: " ")
            if parts.count == 3 { targets[String(parts[2])] = String(parts[1]) }
        }
        return targets
    }()

    static func canonical(_ name: String) -> String {
        var name = name
        while let target = linkTargets[name] { name = target }
        return name
    }

    /// Instants over three years, both sides of every DST change.
    static let instants = (0..<48).map {
        Date(timeIntervalSince1970: 1_735_689_600 + Double($0) * 23.3 * 86_400 + 5_400)
    }

    /// How a zone renders: pickup windows in two locales, and a date with the zone's long name.
    static func rendering(_ zone: TimeZone, formatter: PickupWindowFormatter) -> [String] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return instants.flatMap { start in
            ["en_US", "fr_FR"].map {
                formatter.label(start: start, end: start + 900, timeZone: zone, locale: Locale(identifier: $0))
            } + [
                start.formatted(
                    Date.FormatStyle(
                        date: .abbreviated, time: .complete, locale: Locale(identifier: "en_US"),
                        calendar: calendar, timeZone: zone))
            ]
        }
    }

    @Test("every zone name of the system's tzdata is accepted and kept as given, but abbreviations and offsets")
    func everySystemZone() throws {
        try #require(Self.systemZones.count > 400, "tzdata is not installed: \(Self.systemZones.count) zones found")
        #expect(Self.systemZones.contains("Asia/Kolkata"))
        var refused: Set<String> = []
        for name in Self.systemZones {
            switch Result(catching: { () throws(CanteenError) -> CafeTimeZone in try CafeTimeZone(name) }) {
            case .success(let zone):
                #expect(zone.identifier == name)
                #expect(CafeDocument.isKnownTimeZone(name))
                let formatted = try FormatInput.timeZone(name)
                #expect(
                    formatted.secondsFromGMT(for: Self.instants[0]) == zone.zone.secondsFromGMT(for: Self.instants[0]))
            case .failure(let error):
                refused.insert(name)
                #expect(error.code == .unknownTimeZone)
                #expect(!CafeDocument.isKnownTimeZone(name))
            }
        }
        #expect(refused == Self.refusedSystemNames)
    }

    @Test("a tzdata name ICU does not list renders as an ICU name of the same zone (Asia/Kolkata as Asia/Calcutta)")
    func renderedAsTheICUAlias() throws {
        let formatter = PickupWindowFormatter()
        let icu = Set(TimeZone.knownTimeZoneIdentifiers)
        var groups: [String: [String]] = [:]
        for name in Self.systemZones where icu.contains(name) { groups[Self.canonical(name), default: []].append(name) }
        let unlisted = Self.systemZones.filter { !icu.contains($0) && !Self.refusedSystemNames.contains($0) }
        #expect(unlisted.contains("Asia/Kolkata"), "ICU lists Asia/Kolkata now: \(unlisted.count) names unlisted")
        for name in unlisted {
            let zone = try CafeTimeZone(name).zone
            // The UTC names (UTC, Universal, Zulu) link to Etc/UTC, which ICU knows but does not list;
            // Foundation names UTC "GMT".
            let aliases = groups[Self.canonical(name)] ?? (Self.canonical(name) == "Etc/UTC" ? ["Etc/UTC", "GMT"] : [])
            #expect(!aliases.isEmpty, "\(name) has no ICU alias")
            let rendered = Self.rendering(zone, formatter: formatter)
            let same = aliases.filter { Self.rendering(TimeZone(identifier: $0)!, formatter: formatter) == rendered }
            #expect(!same.isEmpty, "\(name) renders unlike \(aliases)")
        }
        #expect(
            Self.rendering(try CafeTimeZone("Asia/Kolkata").zone, formatter: formatter)
                == Self.rendering(try CafeTimeZone("Asia/Calcutta").zone, formatter: formatter))
    }

    @Test("every zone ICU lists stays accepted, so no café stored before is refused now")
    func icuNamesStayAccepted() throws {
        for name in TimeZone.knownTimeZoneIdentifiers {
            #expect(throws: Never.self, "\(name)") { try CafeTimeZone(name) }
        }
        #expect(try CafeTimeZone("UTC").identifier == "UTC")
        #expect(try CafeTimeZone("GMT").identifier == "GMT")
    }

    @Test(
        "abbreviations, offsets and look-alikes are refused with a message that says why",
        arguments: [
            ("EST", "abbreviation"), ("PST", "abbreviation"), ("CEST", "abbreviation"), ("IST", "abbreviation"),
            ("JST", "abbreviation"), ("MSK", "abbreviation"), ("UCT", "abbreviation"), ("CET", "abbreviation"),
            ("PST8PDT", "offset"), ("EST5EDT", "offset"), ("GMT+5", "offset"), ("+05:30", "offset"),
            ("UTC+1", "offset"),
            ("GMT0", "offset"), ("UTC-03:00", "offset"), ("Etc/GMT+5", "offset"), ("Etc/UTC", "offset"),
            ("posix/Asia/Tokyo", "posix/"), ("right/UTC", "right/"), ("Factory", "placeholder"),
            ("asia/kolkata", "not an IANA"), ("Mars/Olympus_Mons", "not an IANA"), ("", "not an IANA"),
            ("localtime", "not an IANA"), ("../../etc/passwd", "not an IANA"),
        ])
    func refused(_ name: String, _ reason: String) {
        do {
            _ = try CafeTimeZone(name)
            Issue.record("\(name) was accepted")
        } catch {
            #expect(error.code == .unknownTimeZone)
            #expect(error.message.contains(reason), "\(name): \(error.message)")
            #expect(error.parameters["timeZone"] == name)
        }
        #expect(!CafeDocument.isKnownTimeZone(name))
        #expect(throws: CanteenError.self) { try FormatInput.timeZone(name) }
    }
}

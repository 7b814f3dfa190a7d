import Foundation

/// A café's IANA time zone, checked when it is made, with its Gregorian calendar built once.
///
/// Every menu, pickup window and order asks for its café's calendar; building a `TimeZone`
/// and a `Calendar` each time would cost far more than the date arithmetic they serve.
public struct CafeTimeZone: Hashable, Sendable, CustomStringConvertible {
    /// The IANA identifier (`America/Chicago`).
    public let identifier: String
    public let zone: TimeZone
    /// A Gregorian calendar in the zone.
    public let calendar: Calendar

    /// The zone named `identifier`; `unknown_time_zone`, saying why, for anything that is not a
    /// zone name (`refusal(of:)`).
    public init(_ identifier: String) throws(CanteenError) {
        if let refusal = Self.refusal(of: identifier) {
            throw CanteenError(.invalid, code: .unknownTimeZone, message: refusal, parameters: ["timeZone": identifier])
        }
        guard let zone = TimeZone(identifier: identifier) else {
            throw CanteenError(
                .invalid, code: .unknownTimeZone,
                message: "'\(identifier)' is not an IANA time zone name",
                parameters: ["timeZone": identifier])
        }
        self.identifier = identifier
        self.zone = zone
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        self.calendar = calendar
    }

    public var description: String { identifier }

    public static func == (lhs: CafeTimeZone, rhs: CafeTimeZone) -> Bool { lhs.identifier == rhs.identifier }
    public func hash(into hasher: inout Hasher) { hasher.combine(identifier) }
}

// MARK: - Which names are zones

extension CafeTimeZone {
    /// Why `name` is not a café's time zone, or nil when it is one.
    ///
    /// A zone is a name of the system's tzdata as Foundation knows it (`TimeZone(identifier:)`,
    /// which reads tzdata's names through ICU's aliases: `Asia/Kolkata` works though ICU's own list
    /// says `Asia/Calcutta`), kept exactly as given. No list of zones is read here (CanteenCore
    /// does no I/O); what Foundation knows beyond tzdata's names is refused by rule: abbreviations
    /// (`EST`, `CET`, `IST`), which may mean several zones, and UTC offsets and POSIX rules
    /// (`GMT+5`, `+05:30`, `PST8PDT`, tzdata's `Etc/GMT+5`), which follow no place's daylight
    /// saving; and tzdata's `Factory`, a placeholder. `UTC` and `GMT` are zones.
    public static func refusal(of name: String) -> String? {
        let shown = "'\(name.prefix(64))'"
        if name.hasPrefix("posix/") || name.hasPrefix("right/") {
            return "\(shown) is one of tzdata's posix/ and right/ copies; use the name without that prefix"
        }
        if name.hasPrefix("Etc/") {
            return "\(shown) is one of tzdata's fixed offsets (Etc/GMT+5 is UTC−5, its sign reversed), "
                + "not a place's time zone; use a zone name such as America/Chicago, or UTC"
        }
        if name.contains(where: \.isNumber) || name.hasPrefix("+") || name.hasPrefix("-") {
            return "\(shown) is a UTC offset or a POSIX rule, which follows no place's daylight saving time; "
                + "use a zone name such as America/Chicago or Asia/Kolkata"
        }
        if isAbbreviation(name) {
            return "\(shown) is a time zone abbreviation, which names no place and may mean several zones; "
                + "use a zone name such as America/New_York"
        }
        if name == "Factory" {
            return "\(shown) is tzdata's placeholder for a machine whose zone was never set, "
                + "not a place's time zone"
        }
        // Foundation calls UTC "GMT"; any other name it answers under another is not a zone name.
        guard name == "UTC" || TimeZone(identifier: name)?.identifier == name else {
            return "\(shown) is not an IANA time zone name (names are case-sensitive, such as America/Chicago)"
        }
        return nil
    }

    /// Abbreviations Foundation takes as zones (`EST`, `JST`, `MSK`, …) but `UTC` and `GMT`, and any
    /// other name without an area of 3 to 5 capitals ending in T (`CET`, `MET`, `UCT`, `CEST`).
    static func isAbbreviation(_ name: String) -> Bool {
        guard !name.contains("/"), name != "UTC", name != "GMT" else { return false }
        if abbreviations.contains(name) { return true }
        return (3...5).contains(name.utf8.count) && name.utf8.last == UInt8(ascii: "T")
            && name.utf8.allSatisfy { (65...90).contains($0) }
    }

    private static let abbreviations = Set(TimeZone.abbreviationDictionary.keys)
}

extension CafeTimeZone: Codable {
    public init(from decoder: any Decoder) throws {
        let identifier = try decoder.singleValueContainer().decode(String.self)
        do {
            try self.init(identifier)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(identifier)
    }
}

extension Currency: Codable {
    public init(from decoder: any Decoder) throws {
        let code = try decoder.singleValueContainer().decode(String.self)
        do {
            try self.init(code: code)
        } catch {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.message))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(code)
    }
}

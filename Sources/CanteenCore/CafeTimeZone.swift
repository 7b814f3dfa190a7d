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

    /// The zone named `identifier`; `unknown_time_zone` for anything that is not an IANA name.
    public init(_ identifier: String) throws(CanteenError) {
        guard CafeDocument.isKnownTimeZone(identifier), let zone = TimeZone(identifier: identifier) else {
            throw CanteenError(.invalid, code: .unknownTimeZone, message: "'\(identifier)' is not an IANA time zone",
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

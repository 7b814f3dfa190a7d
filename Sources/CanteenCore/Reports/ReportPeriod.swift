import CanteenJSON
import Foundation

/// The café-local dates a report covers, both included (at most `maximumDays`).
public struct ReportPeriod: Hashable, Sendable {
    public let from: LocalDate
    public let to: LocalDate

    /// The longest period one report covers, in days.
    public static let maximumDays = 366

    /// Checks the order and the length; problems name `from` or `to`.
    public init(from: LocalDate, to: LocalDate) throws(CanteenError) {
        guard from <= to else {
            throw CanteenError(
                .invalid, code: .invalidQuery, message: "to (\(to)) comes before from (\(from))",
                field: "to")
        }
        guard to.epochDay - from.epochDay < Int64(Self.maximumDays) else {
            throw CanteenError(
                .invalid, code: .invalidQuery,
                message: "a report covers at most \(Self.maximumDays) days", field: "to")
        }
        self.from = from
        self.to = to
    }

    /// Every date of the period, in order.
    public var dates: [LocalDate] {
        (from.epochDay...to.epochDay).map(LocalDate.init(epochDay:))
    }
}

extension LocalDate {
    /// Days from 1970-01-01.
    public var epochDay: Int64 { RFC3339.daysSinceEpoch(year: Int64(year), month: Int64(month), day: Int64(day)) }

    /// The date `days` after 1970-01-01.
    public init(epochDay days: Int64) {
        let (year, month, day) = RFC3339.civilDate(daysSinceEpoch: days)
        self.init(year: Int(year), month: Int(month), day: Int(day))
    }
}

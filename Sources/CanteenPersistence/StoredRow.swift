import CanteenCore

/// Errors for stored data that does not parse: they name the table, the row and what is wrong,
/// and are never replaced by a silent default.
public enum StoredRow {
    public static func invalid(table: String, id: String, _ problem: String) -> CanteenError {
        CanteenError(
            .internal, code: .storedDataInvalid, message: "row '\(id)' of table \(table): \(problem)",
            parameters: ["table": table, "id": id])
    }
}

extension OpenTicketCounts {
    /// Adds the count of one stored group of tickets (station, status); a status that is not one is
    /// an error naming the group.
    public mutating func add(station: String, status: String, count: Int) throws {
        guard let parsed = TicketStatus(rawValue: status) else {
            throw StoredRow.invalid(table: "ticket", id: "station \(station)", "'\(status)' is not a ticket status")
        }
        byStation[station, default: [:]][parsed, default: 0] += count
    }
}

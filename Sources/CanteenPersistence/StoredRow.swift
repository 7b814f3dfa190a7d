import CanteenCore

/// Errors for stored data that does not parse: they name the table, the row and what is wrong,
/// and are never replaced by a silent default.
public enum StoredRow {
    public static func invalid(table: String, id: String, _ problem: String) -> CanteenError {
        CanteenError(.internal, code: .storedDataInvalid, message: "row '\(id)' of table \(table): \(problem)",
                     parameters: ["table": table, "id": id])
    }
}

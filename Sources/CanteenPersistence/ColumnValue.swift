import Foundation

/// One stored value as it crosses from one engine to another (`canteen db copy`): typed by the
/// column it was read from, converted by the column it is written to.
public enum ColumnValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
    case date(Date)
    case bool(Bool)
}

/// One table's rows as read for a copy: its columns and a page of rows.
public struct CopiedRows: Sendable {
    public var columns: [String]
    public var rows: [[ColumnValue]]

    public init(columns: [String], rows: [[ColumnValue]]) {
        self.columns = columns
        self.rows = rows
    }
}

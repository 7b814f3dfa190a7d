import CanteenCore
import GRDB

extension DatabaseError: CanteenErrorConvertible {
    /// SQLite busy or locked (another process held the write lock past the busy timeout) is the
    /// database being unavailable, as a PostgreSQL server that cannot be reached is: 503
    /// `database_unavailable`, safe to retry. Anything else has no domain meaning.
    public var canteenError: CanteenError? {
        switch resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            CanteenError(
                .unavailable, code: .databaseUnavailable,
                message: "the database is busy right now; try again in a moment", underlying: self)
        default:
            nil
        }
    }
}

import CanteenCore
import PostgresNIO

/// How the PostgreSQL stores turn the driver's errors into Canteen's: a server that cannot be
/// reached (down, restarting, refusing connections, a connection lost mid-request) is
/// `database_unavailable` (503, safe to retry); anything else the server refuses is an internal
/// error whose details go to the log, never to the client.
enum DatabaseFailure {
    /// The error the stores throw for `error`.
    static func translate(_ error: any Error) -> any Error {
        switch error {
        case is CanteenError:
            return error
        case let error as PSQLError:
            if error.code == .server {
                guard let state = error.serverInfo?[.sqlState], !isConnectionState(state) else {
                    return unavailable(cause: error)
                }
                return error
            }
            return unavailable(cause: error)
        case is PostgresDecodingError:
            return error
        default:
            // Cancelled calls, the pool's own errors (no connection could be made, the lease was
            // given up), NIO's channel errors: the database is not there right now.
            return unavailable(cause: error)
        }
    }

    /// `unavailable`, carrying what the driver said (logged, never sent).
    static func unavailable(cause: any Error) -> CanteenError {
        var error = unavailable
        error.underlying = cause
        return error
    }

    /// What went wrong, for the log: the driver's code and the server's SQLSTATE and message
    /// (`PSQLError`'s own description hides them).
    static func describe(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return "\(error)" }
        var text = "\(error.code)"
        if let state = error.serverInfo?[.sqlState] { text += " \(state)" }
        if let message = error.serverInfo?[.message] { text += ": \(message)" }
        if let underlying = error.underlying { text += " (\(underlying))" }
        return text
    }

    /// Serialization failures and deadlocks: the transaction did nothing and may be run again.
    static func isRetryable(_ error: any Error) -> Bool {
        guard let error = error as? PSQLError, error.code == .server, let state = error.serverInfo?[.sqlState] else {
            return false
        }
        return state == "40001" || state == "40P01"
    }

    /// The SQLSTATE of a server error, when it is one.
    static func sqlState(of error: any Error) -> String? {
        guard let error = error as? PSQLError, error.code == .server else { return nil }
        return error.serverInfo?[.sqlState]
    }

    /// Class 08 (connection exception), 57P01–57P03 (shutting down, crashed, starting up), 53300
    /// (too many connections).
    private static func isConnectionState(_ state: String) -> Bool {
        state.hasPrefix("08") || ["57P01", "57P02", "57P03", "53300"].contains(state)
    }

    static let unavailable = CanteenError(
        .unavailable, code: .databaseUnavailable,
        message: "the database cannot be reached right now; try again in a moment")
}

import CanteenCore
import Foundation
import Logging
import PostgresNIO

extension PostgresDatabase {
    /// Runs SQL text as it is (tests and tools; never with values from a request).
    public func execute(unsafeSQL sql: String) async throws {
        try await withConnection { connection in
            try await connection.run(PostgresQuery(unsafeSQL: sql), logger: self.logger)
        }
    }

    /// The integer in the first column of the first row of `sql` (tests and tools).
    public func integer(unsafeSQL sql: String) async throws -> Int64? {
        try await withConnection { connection in
            try await connection.firstRow(PostgresQuery(unsafeSQL: sql), logger: self.logger)?.decode(Int64?.self)
        }
    }

    /// Creates an empty database `name` on the server of `url` (tests, benchmarks).
    public static func createDatabase(
        _ name: String, on url: PostgresURL, logger: Logger = Logger(label: "canteen.postgres")
    )
        async throws
    {
        try await administer(url, logger: logger) { connection in
            try await connection.run(
                PostgresQuery(unsafeSQL: #"CREATE DATABASE "\#(try plain(name))""#), logger: logger)
        }
    }

    /// Drops database `name` on the server of `url`, disconnecting its sessions.
    public static func dropDatabase(
        _ name: String, on url: PostgresURL, logger: Logger = Logger(label: "canteen.postgres")
    )
        async throws
    {
        try await administer(url, logger: logger) { connection in
            try await connection.run(
                PostgresQuery(unsafeSQL: #"DROP DATABASE IF EXISTS "\#(try plain(name))" WITH (FORCE)"#),
                logger: logger)
        }
    }

    private static func administer(
        _ url: PostgresURL, logger: Logger,
        _ body: (PostgresConnection) async throws -> Void
    ) async throws {
        let connection = try await PostgresConnection.connect(
            configuration: url.connectionConfiguration(), id: 0,
            logger: logger)
        do {
            try await body(connection)
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }

    private static func plain(_ name: String) throws -> String {
        guard !name.isEmpty, name.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") }) else {
            throw CanteenError(.invalid, code: .invalidField, message: "'\(name)' is not a plain database name")
        }
        return name
    }
}

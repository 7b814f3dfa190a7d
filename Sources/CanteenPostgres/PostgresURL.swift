import CanteenCore
import Foundation
import PostgresNIO

/// Where a PostgreSQL database is: `postgres://user[:password]@host[:port]/database[?sslmode=…]`.
///
/// `sslmode` is `disable`, `prefer` (the default: TLS when the server offers it) or `require`.
/// A `host=/path/to/dir` parameter connects through the server's Unix socket in that folder,
/// as libpq does.
public struct PostgresURL: Sendable, Hashable, CustomStringConvertible {
    public enum TLSMode: String, Sendable, Hashable {
        case disable, prefer, require
    }

    public var host: String
    public var port: Int
    /// The folder of the server's Unix socket (`?host=/dir`), when connecting through it.
    public var socketDirectory: String?
    public var user: String
    public var password: String?
    public var database: String
    public var tls: TLSMode

    /// Parses a `postgres://` or `postgresql://` URL; a malformed one is `invalid_field` naming `field`.
    public init(_ text: String, field: String = "database") throws {
        func invalid(_ problem: String) -> CanteenError {
            CanteenError(
                .invalid, code: .invalidField,
                message: "\(problem); expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE", field: field)
        }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            ["postgres", "postgresql"].contains(scheme)
        else {
            throw invalid("'\(Self.redacted(text))' is not a postgres:// URL")
        }
        var path = components.percentEncodedPath
        if path.hasPrefix("/") { path.removeFirst() }
        let database = path.removingPercentEncoding ?? path
        guard !database.isEmpty, !database.contains("/") else { throw invalid("the URL names no database") }
        let user = components.percentEncodedUser.flatMap { $0.removingPercentEncoding } ?? ""
        guard !user.isEmpty else { throw invalid("the URL names no user") }
        var tls = TLSMode.prefer
        var socketDirectory: String?
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                switch item.value {
                case "disable", "allow": tls = .disable
                case "prefer": tls = .prefer
                case "require", "verify-ca", "verify-full": tls = .require
                default: throw invalid("sslmode '\(item.value ?? "")' is not disable, prefer or require")
                }
            case "host":
                guard let value = item.value, value.hasPrefix("/") else { throw invalid("host= takes a socket folder") }
                socketDirectory = value
            case "application_name", "connect_timeout":
                continue
            default:
                throw invalid("the parameter '\(item.name)' is not supported")
            }
        }
        let host = components.host ?? ""
        guard !host.isEmpty || socketDirectory != nil else { throw invalid("the URL names no host") }
        self.host = host.isEmpty ? "localhost" : host
        self.port = components.port ?? 5432
        self.socketDirectory = socketDirectory
        self.user = user
        self.password = components.percentEncodedPassword.flatMap { $0.removingPercentEncoding }
        self.database = database
        self.tls = tls
    }

    /// The URL without its password (for logs and messages).
    public var description: String {
        var parameters: [String] = []
        if let socketDirectory { parameters.append("host=\(socketDirectory)") }
        if tls != .prefer { parameters.append("sslmode=\(tls.rawValue)") }
        let query = parameters.isEmpty ? "" : "?" + parameters.joined(separator: "&")
        return "postgres://\(user)@\(host):\(port)/\(database)\(query)"
    }

    /// The same server with another database (tests create and drop their own).
    public func with(database: String) -> PostgresURL {
        var url = self
        url.database = database
        return url
    }

    /// `text` with any password replaced, for error messages.
    static func redacted(_ text: String) -> String {
        guard var components = URLComponents(string: text), components.password != nil else { return text }
        components.password = "***"
        return components.string ?? "(a URL)"
    }

    // MARK: - postgres-nio configurations

    func clientConfiguration(maximumConnections: Int) -> PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let socketDirectory {
            configuration = .init(
                unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: user,
                password: password, database: database)
        } else {
            configuration = .init(
                host: host, port: port, username: user, password: password, database: database,
                tls: clientTLS)
        }
        configuration.options.maximumConnections = maximumConnections
        configuration.options.connectTimeout = .seconds(3)
        configuration.options.additionalStartupParameters = [("application_name", "canteen")]
        return configuration
    }

    func connectionConfiguration() throws -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        if let socketDirectory {
            configuration = .init(
                unixSocketPath: "\(socketDirectory)/.s.PGSQL.\(port)", username: user,
                password: password, database: database)
        } else {
            configuration = .init(
                host: host, port: port, username: user, password: password, database: database,
                tls: try connectionTLS())
        }
        configuration.options.connectTimeout = .seconds(3)
        configuration.options.additionalStartupParameters = [("application_name", "canteen-listener")]
        return configuration
    }

    private var clientTLS: PostgresClient.Configuration.TLS {
        switch tls {
        case .disable: .disable
        case .prefer: .prefer(.makeClientConfiguration())
        case .require: .require(.makeClientConfiguration())
        }
    }

    private func connectionTLS() throws -> PostgresConnection.Configuration.TLS {
        switch tls {
        case .disable: .disable
        case .prefer: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
        case .require: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
        }
    }
}

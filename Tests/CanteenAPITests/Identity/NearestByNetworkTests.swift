import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenStore
import CanteenTestSupport
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

/// "Nearest" from a browser: the client's address inside a café's building network, read from
/// `X-Forwarded-For` only behind a trusted proxy. Live tests (a real socket from 127.0.0.1), so
/// that the peer address is real.
@Suite("Nearest café by network, trusted proxies, and keeping no address")
struct NearestByNetworkTests {
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    /// The test environment with testcafe's building at 10.20.0.0/16 (othercafe, first by id, is
    /// where "fallback" ends), and a user token for u-ana (whose default location is "nearest").
    static func environment() async throws -> (TestEnvironment, String) {
        let environment = try await TestEnvironment.make()
        var cafe = try #require(try await environment.stores.cafes.cafe(id: "testcafe")?.cafe)
        cafe.networks = [try IPAddressRange.network("10.20.0.0/16"), try IPAddressRange.network("2001:db8:a::/48")]
        _ = try await environment.stores.cafes.saveCafe(cafe)
        let token = try await environment.stores.tokens.createToken(TokenSpec(role: .user, userID: "u-ana")).secret
        return (environment, token)
    }

    /// Runs `body` against a live server with `identity`, its request log lines collected.
    static func live<T: Sendable>(
        _ environment: TestEnvironment, _ identity: IdentitySettings,
        _ body: @Sendable (any TestClientProtocol, LogLines) async throws -> T
    ) async throws -> T {
        var services = environment.services
        services.identity = identity
        let lines = LogLines()
        var logger = Logger(label: "canteen.test") { _ in CollectingLogHandler(lines: lines) }
        logger.logLevel = .info
        let app = Application(router: CanteenRouter.build(services).router, logger: logger)
        return try await app.test(.live) { client in try await body(client, lines) }
    }

    static func choose(
        _ client: any TestClientProtocol, token: String, forwardedFor: String?,
        json: JSONValue? = nil
    ) async throws -> JSONValue {
        var headers = HTTPFields()
        if let forwardedFor { headers[Self.forwardedFor] = forwardedFor }
        let response = try await client.send(.post, "/v1/users/u-ana/cafe", token: token, json: json, headers: headers)
        #expect(response.status == .ok, "\(String(buffer: response.body))")
        return try response.json
    }

    @Test("behind a trusted proxy, a client address inside a café's network chooses it, the detail naming the network")
    func trustedProxy() async throws {
        let (environment, token) = try await Self.environment()
        let identity = IdentitySettings(trustedProxies: [try IPAddressRange.network("127.0.0.1/32")])
        try await Self.live(environment, identity) { client, _ in
            let choice = try await Self.choose(client, token: token, forwardedFor: "10.20.3.4")
            #expect(choice["cafe", "id"] == "testcafe")
            #expect(choice["reason"] == "nearest")
            #expect(choice["detail"]?.stringValue?.contains("10.20.0.0/16") == true, "\(choice)")
            #expect(choice["detail"]?.stringValue?.contains("10.20.3.4") == false, "the answer repeats no address")
            // IPv6 too, and the rightmost address not added by a trusted proxy is the client.
            #expect(try await Self.choose(client, token: token, forwardedFor: "2001:db8:a::42")["reason"] == "nearest")
            #expect(
                try await Self.choose(client, token: token, forwardedFor: "10.20.3.4, 127.0.0.1")["reason"]
                    == "nearest")
            let spoofed = try await Self.choose(client, token: token, forwardedFor: "10.20.3.4, 198.51.100.7")
            #expect(spoofed["reason"] == "fallback", "a client cannot put a café's address left of its own")
            #expect(spoofed["detail"]?.stringValue?.contains("in no café's network") == true, "\(spoofed)")
            let outside = try await Self.choose(client, token: token, forwardedFor: "192.0.2.9")
            #expect(outside["cafe", "id"] == "othercafe")
            #expect(outside["reason"] == "fallback")
        }
    }

    @Test("from a peer that is not a trusted proxy, X-Forwarded-For is ignored")
    func untrustedPeer() async throws {
        let (environment, token) = try await Self.environment()
        for identity in [
            IdentitySettings(), IdentitySettings(trustedProxies: [try IPAddressRange.network("10.0.0.5/32")]),
        ] {
            try await Self.live(environment, identity) { client, _ in
                let choice = try await Self.choose(client, token: token, forwardedFor: "10.20.3.4")
                #expect(choice["reason"] == "fallback")
                #expect(choice["cafe", "id"] == "othercafe")
            }
        }
        // The peer's own address counts when it is inside a network (a browser on the café's LAN).
        var cafe = try #require(try await environment.stores.cafes.cafe(id: "testcafe")?.cafe)
        cafe.networks = [try IPAddressRange.network("127.0.0.0/8")]
        _ = try await environment.stores.cafes.saveCafe(cafe)
        try await Self.live(environment, IdentitySettings()) { client, _ in
            let choice = try await Self.choose(client, token: token, forwardedFor: nil)
            #expect(choice["reason"] == "nearest")
            #expect(choice["detail"]?.stringValue?.contains("127.0.0.0/8") == true)
        }
    }

    @Test("sightings, when sent, still come first")
    func sightingsFirst() async throws {
        let (environment, token) = try await Self.environment()
        let identity = IdentitySettings(trustedProxies: [try IPAddressRange.network("127.0.0.1/32")])
        let nearOther = TestBeacons.body(TestBeacons.sightings(major: 901, rssi: -59, from: 0, to: 3))
        try await Self.live(environment, identity) { client, _ in
            let choice = try await Self.choose(client, token: token, forwardedFor: "10.20.3.4", json: nearOther)
            #expect(choice["cafe", "id"] == "othercafe")
            #expect(choice["reason"] == "nearest")
            #expect(choice["detail"]?.stringValue?.contains("beacon") == true)
        }
    }

    @Test("a nearest decision stores no address: no table holds it, and request logs keep it only when asked to")
    func nothingKept() async throws {
        let directory = TestEnvironment.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = try await TestEnvironment.make(dataDirectory: directory)
        var cafe = try #require(try await environment.stores.cafes.cafe(id: "testcafe")?.cafe)
        cafe.networks = [try IPAddressRange.network("10.20.0.0/16")]
        _ = try await environment.stores.cafes.saveCafe(cafe)
        let token = try await environment.stores.tokens.createToken(TokenSpec(role: .user, userID: "u-ana")).secret
        let proxy = try IPAddressRange.network("127.0.0.1/32")
        // Default: no address in the logs.
        try await Self.live(environment, IdentitySettings(trustedProxies: [proxy])) { client, lines in
            let choice = try await Self.choose(client, token: token, forwardedFor: "10.20.77.88")
            #expect(choice["reason"] == "nearest")
            let logged = lines.all
            #expect(logged.contains { $0.contains("route=/v1/users/{userId}/cafe") }, "\(logged)")
            #expect(!logged.contains { $0.contains("10.20.77.88") }, "\(logged)")
        }
        // --log-client-address: the client's address (the forwarded one) is in the request line.
        try await Self.live(environment, IdentitySettings(trustedProxies: [proxy], logClientAddress: true)) {
            client, lines in
            let choice = try await Self.choose(client, token: token, forwardedFor: "10.20.77.88")
            #expect(choice["reason"] == "nearest")
            #expect(lines.all.contains { $0.contains("client=10.20.77.88") }, "\(lines.all)")
        }
        // Every table, every column: the address is nowhere.
        let database = try #require(environment.stores.sqliteDatabase)
        let hits = try await database.writer.read { db -> [String] in
            var hits: [String] = []
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
            for table in tables {
                let columns = try db.columns(in: table).map(\.name)
                let condition = columns.map { "CAST(\"\($0)\" AS TEXT) LIKE '%10.20.77.88%'" }.joined(separator: " OR ")
                if try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \"\(table)\" WHERE \(condition)") ?? 0 > 0 {
                    hits.append(table)
                }
            }
            return hits
        }
        #expect(hits.isEmpty, "the client's address is stored in \(hits)")
    }
}

/// Log lines as text (`message key=value …`), collected for a test to read.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

/// A log handler that writes every line to `LogLines`.
struct CollectingLogHandler: LogHandler {
    let lines: LogLines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        lines.append(
            ([event.message.description] + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })
                .joined(separator: " "))
    }
}

import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("The real server")
struct LiveServerTests {
    @Test("serve imports the sample cafés into an empty database and answers a menu over a socket")
    func menuOverSocket() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "canteen-live-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = AppConfiguration(
            host: "127.0.0.1", port: 0, dataDirectory: directory,
            menusDirectory: Fixtures.menusDirectory)
        let app = try await buildApplication(configuration)
        let stores = try CanteenStores.open(dataDirectory: directory)
        let token = try await stores.tokens.createToken(role: .kiosk, cafeID: nil, name: nil).secret
        try await app.test(.live) { client in
            let response = try await client.send(.get, "/v1/cafes/tokyo/menu", token: token)
            #expect(response.status == .ok)
            #expect(try response.json["currency"] == "JPY")
            #expect(response.headers[.eTag] != nil)
            #expect(client.port != nil)
        }
    }
}

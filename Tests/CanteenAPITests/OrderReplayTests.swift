import CanteenAPI
import CanteenApp
import CanteenCore
import CanteenJSON
import CanteenStore
import CanteenTestSupport
import Crypto
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Orders are rendered after commit; a replay renders the stored order again.
@Suite("Replaying an order")
struct OrderReplayTests {
    static let replayed = HTTPField.Name("Idempotent-Replayed")!

    @Test("a replay is byte for byte the first answer, even after the kitchen moved its tickets")
    func replayIsTheFirstAnswer() async throws {
        let environment = try await TestEnvironment.make()
        try await withRouter(environment) { client in
            let first = try await client.placeOrder(
                orderBody(), token: environment.kiosk, key: "same", acceptLanguage: "es-UY")
            #expect(first.status == .created)
            let ticket = try #require(try first.json["tickets", 0, "id"]?.stringValue)
            let moved = try await client.send(
                .post, "/v1/tickets/\(ticket)/status", token: environment.kitchen,
                json: ["status": "preparing"])
            #expect(moved.status == .ok)
            let read = try await client.send(
                .get, "/v1/orders/\(try #require(try first.json["id"]?.stringValue))",
                token: environment.kiosk, headers: [.acceptLanguage: "es-UY"])
            #expect(try read.json["status"] == "preparing")

            let replay = try await client.placeOrder(
                orderBody(), token: environment.kiosk, key: "same", acceptLanguage: "en")
            #expect(replay.status == .created)
            #expect(replay.headers[Self.replayed] == "true")
            #expect(replay.headers[.contentLanguage] == first.headers[.contentLanguage])
            #expect(String(buffer: replay.body) == String(buffer: first.body))
            #expect(try replay.json["status"] == "placed")
        }
        #expect(try await environment.rowCount("customerOrder") == 1)
        #expect(try await environment.rowCount("idempotencyRecord") == 1)
    }

    @Test("a key stored before v5, with the answer's bytes, still replays them")
    func legacyKeysReplay() async throws {
        let environment = try await TestEnvironment.make()
        let tokenID = try #require(try await environment.stores.tokens.tokens().first { $0.name == "kiosk" }?.id)
        let body = orderBody()
        let fingerprint = Data(SHA256.hash(data: body.encoded()))
        let stored = Data(#"{"id":"ord_legacy","number":7}"#.utf8)
        try await environment.stores.sqliteDatabase!.writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO idempotencyKey (tokenId, key, requestHash, status, body, orderId, createdAt, contentLanguage)
                    VALUES (?, 'old-key', ?, 201, ?, 'ord_legacy', ?, 'ja')
                    """, arguments: [tokenID, fingerprint, stored, environment.clock.now])
        }
        try await withRouter(environment) { client in
            let replay = try await client.placeOrder(body, token: environment.kiosk, key: "old-key")
            #expect(replay.status == .created)
            #expect(replay.headers[Self.replayed] == "true")
            #expect(replay.headers[.contentLanguage] == "ja")
            #expect(Data(replay.body.readableBytesView) == stored)
            let other = try await client.placeOrder(orderBody(name: "Grace"), token: environment.kiosk, key: "old-key")
            #expect(other.status == .unprocessableContent)
            #expect(try other.json["error", "code"] == "idempotency_key_reused")
        }
        #expect(try await environment.rowCount("customerOrder") == 0)
    }

    @Test("a stored order whose row does not parse is an error naming the row, never a default")
    func corruptRowsAreNamed() async throws {
        let environment = try await TestEnvironment.make()
        let id = try await withRouter(environment) { client in
            try #require(try await client.placeOrder(orderBody(), token: environment.kiosk).json["id"]?.stringValue)
        }
        try await environment.stores.sqliteDatabase!.writer.write { db in
            try db.execute(sql: "UPDATE customerOrder SET currency = 'XXQ' WHERE id = ?", arguments: [id])
        }
        await #expect {
            _ = try await environment.stores.orders.order(id: id)
        } throws: { error in
            let error = try #require(error as? CanteenError)
            return error.code == .storedDataInvalid && error.message.contains(id) && error.message.contains("XXQ")
        }
        try await environment.stores.sqliteDatabase!.writer.write { db in
            try db.execute(sql: "UPDATE customerOrder SET currency = 'USD' WHERE id = ?", arguments: [id])
            try db.execute(sql: "UPDATE ticket SET status = 'burnt' WHERE orderId = ?", arguments: [id])
        }
        await #expect {
            _ = try await environment.stores.orders.order(id: id)
        } throws: { error in
            let error = try #require(error as? CanteenError)
            return error.code == .storedDataInvalid && error.message.contains("burnt")
                && error.message.contains("ticket")
        }
        try await withRouter(environment) { client in
            let read = try await client.send(.get, "/v1/orders/\(id)", token: environment.kiosk)
            #expect(read.status == .internalServerError)
            #expect(try read.json["error", "code"] == "internal_error")
        }
    }
}

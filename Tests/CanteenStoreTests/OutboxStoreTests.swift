import CanteenApp
import CanteenCore
import CanteenStore
import CanteenTestSupport
import Foundation
import Synchronization
import Testing

/// The repositories main added after the PostgreSQL engine branched (coupons, card enrolments,
/// user tokens, café display settings, order events and webhooks), on both engines and across
/// two servers.
@Suite("Coupons, enrolments, user tokens, order events and webhooks, on SQLite and PostgreSQL")
struct OutboxStoreTests {
    let clock = TestClock(Fixtures.chicagoMonday(hour: 9))

    func coupon(_ id: String = "LATTE1", maxUses: Int = 1) -> Coupon {
        Coupon(
            id: id, label: "A free latte", benefit: .itemFree(itemID: "latte"), cafeID: "testcafe", validFrom: nil,
            validUntil: nil, maxUses: maxUses, createdAt: clock.now)
    }

    func request(coupon: String?) -> OrderRequest {
        var request = OrderStoreTests.request(["latte", "salad"])
        request.couponID = coupon
        return request
    }

    // MARK: - Coupons

    @Test(
        "a coupon is stored, listed and revoked; its id is unique; a code minted on one server is accepted by another",
        arguments: StoreBackend.available)
    func couponLifecycle(backend: StoreBackend) async throws {
        try await backend.withServers(2, clock: clock, onDisk: true) { servers in
            let (first, second) = (servers[0].stores, servers[1].stores)
            try await first.cafes.importCafes([try Fixtures.cafeAndMenu()])
            _ = try await first.coupons.createCoupon(coupon())
            let duplicate = await #expect(throws: CanteenError.self) {
                _ = try await second.coupons.createCoupon(coupon())
            }
            #expect(duplicate?.code == .duplicateId)
            let unknownCafe = await #expect(throws: CanteenError.self) {
                var other = coupon("OTHER")
                other.cafeID = "nowhere"
                _ = try await first.coupons.createCoupon(other)
            }
            #expect(unknownCafe?.code == .unknownCafe)
            #expect(try await second.coupons.coupons().map(\.id) == ["LATTE1"])
            let code = try first.coupons.code(couponID: "LATTE1")
            #expect(try second.coupons.couponID(code: code) == "LATTE1")
            let revoked = try await second.coupons.revokeCoupon(id: "LATTE1")
            #expect(revoked.revokedAt == clock.now)
            #expect(try await first.coupons.coupon(id: "LATTE1")?.revokedAt == clock.now)
            let missing = await #expect(throws: CanteenError.self) {
                _ = try await first.coupons.revokeCoupon(id: "NONE")
            }
            #expect(missing?.code == .couponNotFound)
        }
    }

    @Test(
        "a single-use coupon sent to two servers at once is redeemed once; the order keeps its discount; cancelling gives the use back",
        arguments: StoreBackend.available)
    func couponRedeemedOnce(backend: StoreBackend) async throws {
        try await backend.withServers(2, clock: clock, onDisk: true) { servers in
            try await servers[0].stores.cafes.importCafes([try Fixtures.cafeAndMenu()])
            _ = try await servers[0].stores.coupons.createCoupon(coupon())
            let outcomes = try await withThrowingTaskGroup(of: Result<OrderPlacement, CanteenError>.self) { group in
                for server in servers {
                    group.addTask {
                        do {
                            return .success(
                                try await server.stores.orders.placeOrder(request(coupon: "LATTE1"), key: nil))
                        } catch let error as CanteenError {
                            return .failure(error)
                        }
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let placed = outcomes.compactMap { outcome -> Order? in
                if case .success(.placed(let order)) = outcome { return order }
                return nil
            }
            let refused = outcomes.compactMap { outcome -> CanteenError? in
                if case .failure(let error) = outcome { return error }
                return nil
            }
            #expect(placed.count == 1)
            #expect(refused.map(\.code) == [.couponUsedUp])
            let order = try #require(placed.first)
            let discount = try #require(order.discount)
            #expect(discount.couponID == "LATTE1")
            #expect(discount.amount > 0)
            #expect(try await servers[1].stores.orders.order(id: order.id)?.discount == discount)
            #expect(try await servers[1].stores.coupons.coupon(id: "LATTE1")?.uses == 1)
            _ = try await servers[1].stores.orders.cancelOrder(id: order.id)
            #expect(try await servers[0].stores.coupons.coupon(id: "LATTE1")?.uses == 0)
            guard case .placed = try await servers[0].stores.orders.placeOrder(request(coupon: "LATTE1"), key: nil)
            else {
                Issue.record("the use given back was not redeemable")
                return
            }
        }
    }

    // MARK: - Card enrolments

    @Test(
        "an enrolment code made on one server registers a card on another, once; an expired code is refused",
        arguments: StoreBackend.available)
    func enrolment(backend: StoreBackend) async throws {
        try await backend.withServers(2, clock: clock, onDisk: true) { servers in
            let (first, second) = (servers[0].stores.cards, servers[1].stores.cards)
            let card = try CardIdentifier("04A25C1A2B3C80")
            let code = try await first.createEnrolment(
                userID: "ana", displayName: "Ana",
                expiresAt: clock.now.addingTimeInterval(900))
            let registration = try await second.enrol(code: code.lowercased(), technology: .type2, identifier: card)
            #expect(registration.userID == "ana")
            #expect(try await first.identify(technology: .type2, identifier: card).userID == "ana")
            let again = await #expect(throws: CanteenError.self) {
                _ = try await first.enrol(code: code, technology: .type2, identifier: card)
            }
            #expect(again?.code == .enrolmentCodeInvalid)
            let expired = try await first.createEnrolment(
                userID: "bo", displayName: nil,
                expiresAt: clock.now.addingTimeInterval(-1))
            let late = await #expect(throws: CanteenError.self) {
                _ = try await second.enrol(
                    code: expired, technology: .type2, identifier: try CardIdentifier("04A25C1A2B3C81"))
            }
            #expect(late?.code == .enrolmentCodeInvalid)
        }
    }

    // MARK: - User tokens and display settings

    @Test(
        "a user token keeps its user; a user token without one is refused before anything is stored",
        arguments: StoreBackend.available)
    func userTokens(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { server in
            let store = server.stores.tokens
            let (token, secret) = try await store.createToken(TokenSpec(role: .user, userID: "ana", name: "phone"))
            let found = try #require(try await store.authenticate(secret: secret))
            #expect(found.id == token.id)
            #expect(found.role == .user)
            #expect(found.userID == "ana")
            #expect(found.cafeID == nil)
            let refused = await #expect(throws: CanteenError.self) {
                _ = try await store.createToken(TokenSpec(role: .user, name: "nobody's"))
            }
            #expect(refused?.field == "userId")
            #expect(try await store.tokens().count == 1)
        }
    }

    @Test("a café's display settings are stored and read back", arguments: StoreBackend.available)
    func displaySettings(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { server in
            try await server.stores.cafes.importCafes([try Fixtures.cafeAndMenu()])
            var cafe = try #require(try await server.stores.cafes.cafe(id: "testcafe")).cafe
            #expect(cafe.display == .standard)
            cafe.display = DisplaySettings(ticketWarningMinutes: 3, ticketLateMinutes: 12, boardReadyMinutes: 25)
            _ = try await server.stores.cafes.saveCafe(cafe)
            #expect(try await server.stores.cafes.cafe(id: "testcafe")?.cafe.display == cafe.display)
        }
    }

    // MARK: - Order events

    @Test(
        "placing, moving and cancelling write one event per status change, at the change's feed position, chained per order",
        arguments: StoreBackend.available)
    func events(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { server in
            let stores = server.stores
            try await stores.cafes.importCafes([try Fixtures.cafeAndMenu()])
            guard
                case .placed(let order) = try await stores.orders.placeOrder(
                    OrderStoreTests.request(["latte"]), key: nil),
                case .placed(let other) = try await stores.orders.placeOrder(
                    OrderStoreTests.request(["salad"]), key: nil)
            else { throw CanteenError(.internal, code: .internalError, message: "not placed") }
            let ticket = try #require(order.tickets.first)
            let preparing = try await stores.tickets.moveTicket(id: ticket.id, to: .preparing)
            let cancelled = try await stores.orders.cancelOrder(id: order.id)
            let events = try await stores.orderEvents.events(orderID: order.id, after: 0)
            #expect(events.map(\.type) == [.placed, .preparing, .cancelled])
            #expect(events[0].sequence == ticket.sequence)
            #expect(events[1].sequence == preparing.ticket.sequence)
            #expect(events[2].sequence == cancelled.tickets[0].sequence)
            #expect(events.map(\.previousSequence) == [nil, events[0].sequence, events[1].sequence])
            #expect(events[1].ticketStatuses == [ticket.id: .preparing])
            let all = try await stores.orderEvents.events(after: 0, limit: 10)
            #expect(all.map(\.sequence) == all.map(\.sequence).sorted())
            #expect(Set(all.map(\.orderID)) == [order.id, other.id])
            #expect(
                try await stores.orderEvents.events(after: events[1].sequence, limit: 10).map(\.id).contains(
                    events[2].id))
            let followed = try #require(try await stores.orderEvents.followedOrder(id: order.id))
            #expect(followed.version == events[2].sequence)
            #expect(followed.order.tickets.map(\.status) == [.cancelled])
            #expect(try await stores.orderEvents.followedOrder(id: "ord_none") == nil)
            #expect(try await stores.tickets.openTicketCount(cafeID: "testcafe") == 1)
        }
    }

    @Test(
        "an order moved on one server is heard by the other server's event observers (a follower there wakes)",
        arguments: StoreBackend.postgresOnly)
    func eventsAcrossServers(backend: StoreBackend) async throws {
        try await backend.withServers(2, clock: clock) { servers in
            try await withChangeWatchers(servers) {
                try await servers[0].stores.cafes.importCafes([try Fixtures.cafeAndMenu()])
                let heard = Mutex<[OrderEvent]>([])
                servers[1].stores.orderEvents.onOrderEvents { events in heard.withLock { $0 += events } }
                guard
                    case .placed(let order) = try await servers[0].stores.orders.placeOrder(
                        OrderStoreTests.request(["latte"]), key: nil)
                else { return }
                _ = try await servers[0].stores.tickets.moveTicket(id: order.tickets[0].id, to: .preparing)
                try await eventually("server 2 never heard the event of a move made on server 1") {
                    heard.withLock { $0.contains { $0.orderID == order.id && $0.type == .preparing } }
                }
            }
        }
    }

    // MARK: - Webhooks

    func place(_ count: Int, on stores: CanteenStores) async throws -> [Order] {
        var orders: [Order] = []
        for _ in 0..<count {
            guard
                case .placed(let order) = try await stores.orders.placeOrder(
                    OrderStoreTests.request(["salad"]), key: nil)
            else { throw CanteenError(.internal, code: .internalError, message: "not placed") }
            orders.append(order)
        }
        return orders
    }

    @Test(
        "an endpoint gets the events committed after it, leased once; a result moves the delivery on and releases the held one",
        arguments: StoreBackend.available)
    func webhookRound(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { server in
            let stores = server.stores
            try await stores.cafes.importCafes([try Fixtures.cafeAndMenu()])
            _ = try await place(1, on: stores)
            let (endpoint, secret) = try await stores.webhooks.createEndpoint(
                WebhookRegistration(
                    url: "http://127.0.0.1:9/hook", cafeID: "testcafe",
                    events: ["order.placed", "order.cancelled"]))
            #expect(secret.hasPrefix("whsec_"))
            let order = try #require(try await place(1, on: stores).first)
            _ = try await stores.orders.cancelOrder(id: order.id)
            let round = try await stores.webhooks.deliveryRound(recording: [], claim: 10, now: clock.now, lease: 30)
            // The placed event only: the cancellation is held behind it (one pending per order).
            #expect(round.jobs.map(\.event.type) == [.placed])
            #expect(round.jobs.map(\.event.orderID) == [order.id])
            let job = try #require(round.jobs.first)
            #expect(job.secrets.current == secret)
            #expect(job.attempt == 1)
            let leased = try await stores.webhooks.deliveryRound(recording: [], claim: 10, now: clock.now, lease: 30)
            #expect(leased.jobs.isEmpty)
            // Microseconds on PostgreSQL, milliseconds on SQLite: the same instant either way.
            #expect(abs(try #require(leased.nextDue).timeIntervalSince(job.leasedUntil)) < 0.001)
            let result = WebhookAttemptResult(
                endpointID: endpoint.id, eventSequence: job.event.sequence, leasedUntil: job.leasedUntil,
                attempt: WebhookAttempt(attemptedAt: clock.now, statusCode: 204, latencyMilliseconds: 5, error: nil),
                next: .delivered)
            let next = try await stores.webhooks.deliveryRound(
                recording: [result], claim: 10, now: clock.now, lease: 30)
            #expect(next.jobs.map(\.event.type) == [.cancelled])
            let deliveries = try await stores.webhooks.deliveries(endpointID: endpoint.id, limit: 10)
            #expect(deliveries.map(\.state) == [.pending, .delivered])
            #expect(deliveries.last?.attempts.map(\.statusCode) == [204])
            let redelivered = try await stores.webhooks.redeliver(endpointID: endpoint.id, eventID: job.event.id)
            #expect(redelivered.state == .pending)
            let (rotated, newSecret) = try await stores.webhooks.rotateSecret(endpointID: endpoint.id)
            #expect(newSecret != secret)
            #expect(rotated.previousSecretExpiresAt != nil)
            try await stores.webhooks.deleteEndpoint(id: endpoint.id)
            #expect(try await stores.webhooks.endpoints().isEmpty)
            let gone = await #expect(throws: CanteenError.self) {
                try await stores.webhooks.deleteEndpoint(id: endpoint.id)
            }
            #expect(gone?.code == .webhookNotFound)
        }
    }

    @Test(
        "an attempt that outlived its lease, recorded after the attempt that delivered, is listed first: attempts read in the order they were made",
        arguments: StoreBackend.available)
    func attemptsInOrderMade(backend: StoreBackend) async throws {
        try await backend.withStores(clock: clock) { server in
            let stores = server.stores
            try await stores.cafes.importCafes([try Fixtures.cafeAndMenu()])
            let (endpoint, _) = try await stores.webhooks.createEndpoint(
                WebhookRegistration(url: "http://127.0.0.1:9/hook", cafeID: "testcafe", events: ["order.placed"]))
            _ = try await place(1, on: stores)
            let started = clock.now
            let slow = try #require(
                try await stores.webhooks.deliveryRound(
                    recording: [], claim: 10, now: started,
                    lease: 6
                ).jobs.first)
            // The slow attempt is still out when its lease ends: the delivery is handed out again.
            clock.advance(by: 7)
            let again = try #require(
                try await stores.webhooks.deliveryRound(
                    recording: [], claim: 10, now: clock.now,
                    lease: 6
                ).jobs.first)
            #expect(again.event.id == slow.event.id)
            let delivered = WebhookAttemptResult(
                endpointID: endpoint.id, eventSequence: again.event.sequence, leasedUntil: again.leasedUntil,
                attempt: WebhookAttempt(attemptedAt: clock.now, statusCode: 200, latencyMilliseconds: 38, error: nil),
                next: .delivered)
            _ = try await stores.webhooks.deliveryRound(recording: [delivered], claim: 0, now: clock.now, lease: 6)
            let timedOut = WebhookAttemptResult(
                endpointID: endpoint.id, eventSequence: slow.event.sequence, leasedUntil: slow.leasedUntil,
                attempt: WebhookAttempt(
                    attemptedAt: started, statusCode: nil, latencyMilliseconds: 7_500,
                    error: "timed out after 4.0 seconds"),
                next: .retry(at: clock.now.addingTimeInterval(5)))
            _ = try await stores.webhooks.deliveryRound(recording: [timedOut], claim: 0, now: clock.now, lease: 6)
            let delivery = try #require(try await stores.webhooks.deliveries(endpointID: endpoint.id, limit: 10).first)
            #expect(delivery.state == .delivered, "the late result is history; it does not move the delivery back")
            #expect(delivery.attempts.map(\.statusCode) == [nil, 200])
            #expect(delivery.attempts.map(\.attemptedAt) == [started, clock.now])
        }
    }

    @Test(
        "two servers running delivery rounds at once never hand out the same delivery, and together hand out every one",
        arguments: StoreBackend.available)
    func concurrentRounds(backend: StoreBackend) async throws {
        try await backend.withServers(2, clock: clock, onDisk: true) { servers in
            let stores = servers[0].stores
            try await stores.cafes.importCafes([try Fixtures.cafeAndMenu()])
            _ = try await stores.webhooks.createEndpoint(
                WebhookRegistration(url: "http://127.0.0.1:9/a", cafeID: nil, events: ["order.placed"]))
            _ = try await stores.webhooks.createEndpoint(
                WebhookRegistration(url: "http://127.0.0.1:9/b", cafeID: nil, events: ["order.placed"]))
            let orders = try await place(12, on: stores)
            var claimed: [String] = []
            for _ in 0..<6 {
                let jobs = try await withThrowingTaskGroup(of: [WebhookJob].self) { group in
                    for server in servers {
                        group.addTask {
                            try await server.stores.webhooks.deliveryRound(
                                recording: [], claim: 5, now: clock.now,
                                lease: 60
                            ).jobs
                        }
                    }
                    return try await group.reduce(into: []) { $0 += $1 }
                }
                claimed += jobs.map { "\($0.endpointID)/\($0.event.sequence)" }
            }
            #expect(claimed.count == Set(claimed).count, "a delivery was handed out twice")
            #expect(claimed.count == orders.count * 2)
        }
    }
}

import CanteenCore
import Foundation

/// Everything the routes need, as protocols and app-owned parts: the composition root supplies
/// real stores, tests may supply others.
public struct APIServices: Sendable {
    public var cafes: any CafeRepository
    public var tokens: any TokenRepository
    public var orders: any OrderRepository
    public var pickupCapacity: any PickupCapacityRepository
    public var tickets: any TicketRepository
    public var preferences: any PreferencesRepository
    public var beacons: any BeaconRepository
    /// Renders responses in the reader's language and locale.
    public var presenter: Presenter
    /// The kitchen feed: where each café stands, parked displays, shared pages.
    public var feed: TicketFeed
    /// Registered badge cards (nil: the card routes answer cards_unavailable).
    public var cards: (any CardRepository)?
    /// Orders as their followers see them, and their events.
    public var orderEvents: any OrderEventRepository
    /// Webhook endpoints and their deliveries.
    public var webhooks: any WebhookRepository
    /// The current instant (a fixed clock in tests).
    public var clock: @Sendable () -> Date

    public init(cafes: any CafeRepository, tokens: any TokenRepository, orders: any OrderRepository,
                pickupCapacity: any PickupCapacityRepository, tickets: any TicketRepository,
                preferences: any PreferencesRepository, beacons: any BeaconRepository, presenter: Presenter,
                feed: TicketFeed, orderEvents: any OrderEventRepository, webhooks: any WebhookRepository,
                clock: @escaping @Sendable () -> Date = Date.init, cards: (any CardRepository)? = nil) {
        self.cafes = cafes
        self.tokens = tokens
        self.orders = orders
        self.pickupCapacity = pickupCapacity
        self.tickets = tickets
        self.preferences = preferences
        self.presenter = presenter
        self.beacons = beacons
        self.feed = feed
        self.cards = cards
        self.orderEvents = orderEvents
        self.webhooks = webhooks
        self.clock = clock
    }
}

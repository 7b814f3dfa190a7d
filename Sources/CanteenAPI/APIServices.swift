import CanteenCore
import Foundation

/// Everything the routes need, as protocols: the composition root supplies real stores,
/// tests may supply others.
public struct APIServices: Sendable {
    public var cafes: any CafeRepository
    public var tokens: any TokenRepository
    public var orders: any OrderRepository
    public var preferences: any PreferencesRepository
    /// Renders responses in the reader's language and locale.
    public var presenter: Presenter
    public var beacons: any BeaconRepository
    /// Registered badge cards (nil: the card routes answer cards_unavailable).
    public var cards: (any CardRepository)?
    /// The current instant (a fixed clock in tests).
    public var clock: @Sendable () -> Date

    public init(cafes: any CafeRepository, tokens: any TokenRepository, orders: any OrderRepository,
                preferences: any PreferencesRepository, beacons: any BeaconRepository, presenter: Presenter,
                clock: @escaping @Sendable () -> Date = Date.init, cards: (any CardRepository)? = nil) {
        self.cafes = cafes
        self.tokens = tokens
        self.orders = orders
        self.preferences = preferences
        self.presenter = presenter
        self.beacons = beacons
        self.cards = cards
        self.clock = clock
    }
}

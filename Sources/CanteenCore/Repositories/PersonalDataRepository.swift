import Foundation

/// A person's data as a whole: exported on request, erased on request, in one transaction each.
public protocol PersonalDataRepository: Sendable {
    /// Everything held about `userID`.
    func personalData(userID: String) async throws -> PersonalData
    /// The ids of the user's most recent orders, newest first, at most `limit`.
    func recentOrderIDs(userID: String, limit: Int) async throws -> [String]
    /// Deletes the user's preferences, cards, card codes, sessions and user tokens, and unlinks
    /// their orders (no user id, no name, no token; lines and totals stay), in one transaction.
    func erase(userID: String) async throws -> Erasure
}

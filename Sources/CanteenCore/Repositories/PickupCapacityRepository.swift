import Foundation

/// Where the capacity used in each pickup window is kept.
public protocol PickupCapacityRepository: Sendable {
    /// The windows a café offers on a café-local date, with remaining capacity.
    func pickupWindows(of cafe: Cafe, date: LocalDate) async throws -> [PickupWindowAvailability]
}

/// An error of a library beneath Canteen (a database driver) that knows what it means in
/// Canteen's terms: the engine that throws it says, the API answers the domain error.
public protocol CanteenErrorConvertible: Error {
    /// The domain error this stands for, carrying `self` as its `underlying` cause; nil when it
    /// has no meaning for a client (an unexpected failure, answered as `internal_error`).
    var canteenError: CanteenError? { get }
}

import CanteenJSON

/// The `defaultLocation` preference: let the beacons decide, or always one café.
public enum DefaultLocation: Hashable, Sendable {
    /// Choose the nearest café from the device's beacon sightings.
    case nearest
    /// Always this café (it may have been deleted since it was chosen).
    case cafe(String)

    /// The JSON string meaning `.nearest`.
    public static let nearestValue = "nearest"

    /// Reads a stored value: `"nearest"` or a café id; nil for anything else.
    public init?(_ value: JSONValue) {
        guard let string = value.stringValue, !string.isEmpty else { return nil }
        self = string == Self.nearestValue ? .nearest : .cafe(string)
    }

    /// The value as stored.
    public var jsonValue: JSONValue {
        switch self {
        case .nearest: .string(Self.nearestValue)
        case .cafe(let id): .string(id)
        }
    }
}

/// A user's `defaultLocation` as the search list answers it, with the domain that answered.
public struct EffectiveDefaultLocation: Hashable, Sendable {
    public var location: DefaultLocation
    public var source: PreferenceDomain

    public init(location: DefaultLocation, source: PreferenceDomain) {
        self.location = location
        self.source = source
    }
}

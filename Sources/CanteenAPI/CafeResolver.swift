import Beacons
import CanteenCore
import Foundation

// MARK: - CafeChoice

/// The café chosen for a user, and why.
struct CafeChoice: Sendable {
    /// `preferred`, `nearest` or `fallback`.
    enum Reason: String, Sendable {
        case preferred, nearest, fallback
    }

    var cafe: VersionedCafe
    var reason: Reason
    /// One or two English sentences: which café and why (what was skipped on the way).
    var detail: String
}

// MARK: - CafeResolver

/// Chooses the café a kiosk or phone opens for a user:
///
/// 1. the user's `defaultLocation` names a café that exists → it (`preferred`);
/// 2. it is `"nearest"` and the sightings place the device in a café → that café (`nearest`);
///    without that, the client's address inside a café's `networks` → that café (`nearest`,
///    the detail naming the network). The address is used for this one decision, never stored;
/// 3. otherwise (`fallback`): the café of the user's most recent order, else the site default
///    café (the site domain's `defaultLocation` when it names a café), else the first café by id.
///
/// A token bound to one café may only be answered with that café: every other candidate is
/// skipped (and the detail says so), so the chain ends at the bound café.
struct CafeResolver {
    let services: APIServices

    func resolve(
        userID: String, request: LocateRequest, token: AccessToken,
        clientAddress: IPAddress? = nil
    ) async throws -> CafeChoice {
        let allowed: (String) -> Bool = { token.serves(cafeID: $0) }
        var skipped: [String] = []

        let preferences = try await services.preferences.searchList(userID: userID)
        let location = preferences.defaultLocation
        switch location.location {
        case .cafe(let id):
            let origin =
                location.source == .user
                ? "the user's defaultLocation" : "the \(location.source.rawValue) default location"
            if let cafe = try await services.cafes.cafe(id: id) {
                if allowed(id) {
                    return CafeChoice(
                        cafe: cafe, reason: .preferred, detail: Self.detail("\(origin) is café '\(id)'", []))
                }
                skipped.append("\(origin) is café '\(id)', which this kiosk does not serve")
            } else {
                skipped.append("\(origin) names café '\(id)', which no longer exists")
            }
        case .nearest:
            let (choice, reason) = try await nearest(request, allowed: allowed)
            if let choice { return choice }
            let (byNetwork, networkReason) = try await nearest(clientAddress, allowed: allowed)
            if let byNetwork { return byNetwork }
            skipped.append(reason)
            if let networkReason { skipped.append(networkReason) }
        }
        let siteDefault = preferences.site[PreferenceKey.defaultLocation].flatMap(DefaultLocation.init)
        return try await fallback(userID: userID, siteDefault: siteDefault, allowed: allowed, skipped: skipped)
    }

    // MARK: - Nearest

    /// The café the sightings place the device in, or why there is none.
    private func nearest(_ request: LocateRequest, allowed: (String) -> Bool) async throws -> (CafeChoice?, String) {
        guard let sightings = request.sightings else {
            return (nil, "the user wants the nearest café, but no sightings were sent")
        }
        guard !sightings.isEmpty else {
            return (
                nil,
                "the user wants the nearest café, but the sightings list is empty (no beacon in range, or location permission denied)"
            )
        }
        let registry = try await services.beacons.registry()
        services.metrics.beaconSightings(sightings, registry: registry)
        let result = BeaconLocator.locate(
            sightings: sightings, registry: registry, currentCafeID: request.currentCafeID)
        guard let cafeID = result.cafeID else {
            let why =
                result.reason == .noKnownBeacon
                ? "none of the \(sightings.count) sightings is of a registered beacon"
                : "the sightings of registered beacons place the device in no café"
            return (nil, "the user wants the nearest café, but \(why)")
        }
        guard allowed(cafeID) else {
            return (nil, "the beacons place the device in café '\(cafeID)', which this kiosk does not serve")
        }
        guard let cafe = try await services.cafes.cafe(id: cafeID) else {
            return (nil, "the beacons place the device in café '\(cafeID)', which no longer exists")
        }
        var detail = "the nearest café by beacon"
        if let beacon = result.beacon {
            detail +=
                ": \(beacon.label.isEmpty ? beacon.identity.description : beacon.label) is \(result.proximity.rawValue)"
            if let distance = result.distanceMeters, distance.isFinite {
                detail += String(format: " (about %.1f m)", distance)
            }
        }
        detail += " [\(result.reason.rawValue)]"
        return (CafeChoice(cafe: cafe, reason: .nearest, detail: Self.detail(detail, [])), "")
    }

    /// The café whose building network holds the client's address (the first by café id when
    /// several do), or why there is none (nil when the cafés list no network at all).
    private func nearest(_ address: IPAddress?, allowed: (String) -> Bool) async throws -> (CafeChoice?, String?) {
        let cafes = try await services.cafes.cafes().filter { !$0.cafe.networks.isEmpty }
        guard !cafes.isEmpty else { return (nil, nil) }
        guard let address else { return (nil, "the client's address is not known") }
        for cafe in cafes {
            guard let network = cafe.cafe.networks.first(where: { $0.contains(address) }) else { continue }
            guard allowed(cafe.cafe.id) else {
                return (
                    nil, "the client's network \(network) is café '\(cafe.cafe.id)', which this kiosk does not serve"
                )
            }
            return (
                CafeChoice(
                    cafe: cafe, reason: .nearest,
                    detail: Self.detail("the nearest café by network: the client is in \(network)", [])), nil
            )
        }
        return (nil, "the client's address is in no café's network")
    }

    // MARK: - Fallback

    private func fallback(
        userID: String, siteDefault: DefaultLocation?, allowed: (String) -> Bool,
        skipped: [String]
    ) async throws -> CafeChoice {
        var skipped = skipped
        if let id = try await services.orders.latestOrderCafeID(userID: userID) {
            if allowed(id), let cafe = try await services.cafes.cafe(id: id) {
                return CafeChoice(
                    cafe: cafe, reason: .fallback,
                    detail: Self.detail("the café of the user's most recent order, '\(id)'", skipped))
            }
            skipped.append("the user's most recent order is from café '\(id)', which this kiosk does not serve")
        } else {
            skipped.append("the user has no order yet")
        }
        if case .cafe(let id)? = siteDefault {
            if allowed(id), let cafe = try await services.cafes.cafe(id: id) {
                return CafeChoice(
                    cafe: cafe, reason: .fallback, detail: Self.detail("the site default café '\(id)'", skipped))
            }
            skipped.append("the site default café '\(id)' no longer exists or is not served here")
        } else {
            skipped.append("the site has no default café")
        }
        guard let first = try await services.cafes.cafes().first(where: { allowed($0.cafe.id) }) else {
            throw CanteenError(.notFound, code: .noCafe, message: "there is no café to choose from")
        }
        return CafeChoice(
            cafe: first, reason: .fallback, detail: Self.detail("the first café, '\(first.cafe.id)'", skipped))
    }

    /// "`chosen`, because `a`; `b`."
    private static func detail(_ chosen: String, _ skipped: [String]) -> String {
        let sentence = skipped.isEmpty ? chosen : chosen + ", because " + skipped.joined(separator: "; ")
        return sentence.prefix(1).uppercased() + sentence.dropFirst() + "."
    }
}

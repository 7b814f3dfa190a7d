import CanteenCore
import CanteenJSON
import Foundation
import Hummingbird

/// The beacon registry (ops): list, register or replace, remove. The same rows are a café's
/// `beacons` in `GET /v1/cafes/{id}`; a beacon must lie in its café's `beaconRegion`.
struct BeaconRoutes {
    let services: APIServices

    func register(on routes: RouteTable) {
        routes.on(.get, "/v1/beacons") { _, context in try await list(context) }
        routes.on(.put, "/v1/beacons/:uuid/:major/:minor") { request, context in try await save(request, context) }
        routes.on(.delete, "/v1/beacons/:uuid/:major/:minor") { _, context in try await remove(context) }
    }

    func list(_ context: CanteenRequestContext) async throws -> Response {
        try context.require(.ops)
        return try JSONResponse.make(BeaconListDTO(beacons: try await services.beacons.beacons().map(BeaconDTO.init)))
    }

    /// `{"cafeId", "label", "measuredPower"}`: 201 when new, 200 when replaced.
    func save(_ request: Request, _ context: CanteenRequestContext) async throws -> Response {
        try context.require(.ops)
        let identity = try Self.identity(context)
        var request = request
        let body = try await request.jsonBody()
        let beacon = try Self.readRegistration(body, uuid: identity.uuid, major: identity.major, minor: identity.minor)
        let created = try await services.beacons.saveBeacon(
            beacon, audit: context.audit("beacon.save", "beacon", beacon.identityText, cafe: beacon.cafeID))
        return try JSONResponse.make(BeaconDTO(beacon), status: created ? .created : .ok)
    }

    func remove(_ context: CanteenRequestContext) async throws -> Response {
        try context.require(.ops)
        let identity = try Self.identity(context)
        let target = "\(identity.uuid.uuidString)/\(identity.major)/\(identity.minor)"
        try await services.beacons.deleteBeacon(
            uuid: identity.uuid, major: identity.major, minor: identity.minor,
            audit: context.audit("beacon.remove", "beacon", target, cafe: nil))
        return Response(status: .noContent)
    }

    // MARK: - Input

    /// The path's `UUID/MAJOR/MINOR`, each checked (422 naming the part).
    static func identity(_ context: CanteenRequestContext) throws(CanteenError) -> (
        uuid: UUID, major: UInt16, minor: UInt16
    ) {
        let uuidText = try context.parameters.path("uuid")
        guard let uuid = UUID(uuidString: uuidText) else {
            throw CanteenError(
                .invalid, code: .invalidField,
                message: "'\(uuidText.prefix(64))' is not a UUID such as E2C56DB5-DFFB-48D2-B060-D0F5A71096E0",
                field: "uuid")
        }
        return (uuid, try number(context, "major"), try number(context, "minor"))
    }

    private static func number(_ context: CanteenRequestContext, _ name: String) throws(CanteenError) -> UInt16 {
        let text = try context.parameters.path(name)
        guard text.count <= 5, text.allSatisfy(\.isASCII), let value = UInt16(text) else {
            throw CanteenError(
                .invalid, code: .outOfRange,
                message: "\(name) must be a whole number between 0 and 65535, found '\(text.prefix(64))'",
                field: name)
        }
        return value
    }

    /// The body of `PUT /v1/beacons/...`; every problem names its field.
    static func readRegistration(_ body: JSONValue, uuid: UUID, major: UInt16, minor: UInt16) throws(ValidationError)
        -> BeaconRegistration
    {
        let problems = ValidationProblems()
        guard var reader = JSONObjectReader(body, path: "", problems: problems) else {
            throw ValidationError(problems: problems.all)
        }
        let cafeID = reader.string("cafeId")
        let label = reader.string("label", required: false, nonEmpty: false, limit: 200, kind: .name)
        let range = BeaconRegistration.measuredPowerRange
        let power = reader.integer("measuredPower", in: Int64(range.lowerBound)...Int64(range.upperBound))
        reader.finish()
        try problems.throwIfAny()
        guard let cafeID, let power else { throw ValidationError(problems: problems.all) }
        return BeaconRegistration(
            uuid: uuid, major: major, minor: minor, cafeID: cafeID, label: label ?? "",
            measuredPower: Int(power))
    }
}

import CanteenJSON
import Foundation

extension OrderRequest {
    /// The most lines one order may have.
    public static let maxLines = 100
    /// The most of one line (1–99).
    public static let quantityRange: ClosedRange<Int64> = 1...99
    /// The longest kitchen note, customer name and user id, in characters (and 4 bytes each).
    public static let maxNoteLength = 200
    public static let maxCustomerNameLength = 80

    /// Reads `POST /v1/orders`'s body, reporting every problem with its JSON path.
    public static func parse(_ value: JSONValue) throws(ValidationError) -> OrderRequest {
        let problems = ValidationProblems()
        guard var reader = JSONObjectReader(value, path: "", problems: problems) else {
            throw ValidationError(problems: problems.all)
        }
        let cafeID = reader.string("cafeId")
        let lineValues = reader.elements("lines")
        if reader.has("lines") && lineValues.isEmpty {
            problems.add("lines", "an order needs at least one line")
        }
        if lineValues.count > maxLines {
            problems.add(
                "lines", "an order has at most \(maxLines) lines, found \(lineValues.count)", code: .tooManyLines)
        }
        var lines: [OrderLineRequest] = []
        for (path, value) in lineValues.prefix(maxLines) {
            guard var line = JSONObjectReader(value, path: path, problems: problems) else { continue }
            let itemID = line.string("itemId")
            let quantity = line.integer("quantity", in: quantityRange)
            let options = readOptionIDs(&line)
            let note = line.string("note", required: false, nonEmpty: false, limit: maxNoteLength, kind: .freeText)
            line.finish()
            if let itemID, let quantity, let options {
                lines.append(
                    OrderLineRequest(
                        itemID: itemID, quantity: Int(quantity), options: options,
                        note: note.flatMap { $0.isEmpty ? nil : $0 }))
            }
        }
        let pickup = readPickup(&reader)
        let customer = readCustomer(&reader)
        let coupon = reader.string("coupon", required: false)
        if let coupon, coupon.count > 100 { problems.add("coupon", "a coupon code has at most 100 characters") }
        reader.finish()
        try problems.throwIfAny()
        return OrderRequest(cafeID: cafeID!, lines: lines, pickup: pickup!, customer: customer!, couponCode: coupon)
    }

    private static func readOptionIDs(_ line: inout JSONObjectReader) -> [String]? {
        let path = line.childPath("options")
        guard let values = line.array("options", required: false) else { return line.has("options") ? nil : [] }
        var ids: [String] = []
        for (index, value) in values.enumerated() {
            guard let id = value.stringValue else {
                line.problems.add(
                    "\(path)[\(index)]", "expected an option id, found \(value.typeName)", code: .invalidType)
                return nil
            }
            ids.append(id)
        }
        return ids
    }

    /// `"asap"` (the default) or `{"start": RFC 3339}`.
    private static func readPickup(_ reader: inout JSONObjectReader) -> PickupChoice? {
        guard let value = reader.value("pickup", required: false) else { return reader.has("pickup") ? nil : .asap }
        if value == .string("asap") { return .asap }
        guard var pickup = JSONObjectReader(value, path: "pickup", problems: reader.problems) else { return nil }
        let text = pickup.string("start")
        pickup.finish()
        guard let text else { return nil }
        guard let start = RFC3339.parse(text) else {
            reader.problems.add(
                "pickup.start", "'\(text)' is not an RFC 3339 date-time such as 2026-11-23T12:15:00-06:00")
            return nil
        }
        return .window(start: start)
    }

    private static func readCustomer(_ reader: inout JSONObjectReader) -> Customer? {
        guard var customer = reader.object("customer") else { return nil }
        let name = customer.string("name", limit: maxCustomerNameLength, kind: .name)
        let userID = customer.string("userId", required: false)
        customer.finish()
        if let userID, !UserID.isValid(userID) {
            customer.problems.add(
                "customer.userId",
                "'\(userID.prefix(140))' is not a user id: use 1–128 of letters, digits, '-', '_', '.' and '@'")
        }
        guard let name else { return nil }
        return Customer(name: name, userID: userID)
    }
}

import CanteenCore
import CanteenJSON
import Foundation

/// JSON text: whatever the parser accepts is written back canonically and reads the same.
enum JSONFuzz {
    static func parse(_ bytes: UnsafeRawBufferPointer) -> JSONValue? {
        guard let value = try? JSONValue.parse(bytes) else { return nil }
        let canonical = value.encoded()
        FuzzCheck.require((try? JSONValue.parse(canonical)) == value, "JSON does not survive its canonical text")
        return value
    }
}

/// Café files: a document either validates or names at least one problem with its path;
/// validation is deterministic.
enum MenuFuzz {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        guard let value = JSONFuzz.parse(bytes) else { return }
        do {
            let (cafe, menu) = try CafeDocument.parse(value)
            let again = try? CafeDocument.parse(value)
            FuzzCheck.require(again?.cafe == cafe && again?.menu == menu, "validation is not deterministic")
            FuzzCheck.require(Identifier.isValid(cafe.id), "an accepted café has the id '\(cafe.id)'")
            for item in menu.items {
                FuzzCheck.require(item.price >= 0, "an accepted item costs \(item.price)")
                FuzzCheck.require(Identifier.isValid(item.id), "an accepted item has the id '\(item.id)'")
            }
        } catch {
            FuzzCheck.require(!error.problems.isEmpty, "a refusal with no problem")
            for problem in error.problems {
                FuzzCheck.require(!problem.message.isEmpty, "a problem without a message")
            }
        }
    }
}

/// `POST /v1/orders` bodies: an accepted order keeps every limit the API documents.
enum OrderFuzz {
    static func run(_ bytes: UnsafeRawBufferPointer) {
        guard let value = JSONFuzz.parse(bytes) else { return }
        do {
            let order = try OrderRequest.parse(value)
            FuzzCheck.require((1...OrderRequest.maxLines).contains(order.lines.count), "\(order.lines.count) lines")
            for line in order.lines {
                FuzzCheck.require(
                    OrderRequest.quantityRange.contains(Int64(line.quantity)), "quantity \(line.quantity)")
                if let note = line.note {
                    FuzzCheck.require(
                        TextLimits.problem(note, maxCharacters: OrderRequest.maxNoteLength, kind: .freeText) == nil,
                        "an accepted note breaks the limits")
                }
            }
            FuzzCheck.require(
                TextLimits.problem(order.customer.name, maxCharacters: OrderRequest.maxCustomerNameLength) == nil,
                "an accepted name breaks the limits")
            if let user = order.customer.userID { FuzzCheck.require(UserID.isValid(user), "user id '\(user)'") }
            FuzzCheck.require((try? OrderRequest.parse(value)) == order, "order parsing is not deterministic")
        } catch {
            FuzzCheck.require(!error.problems.isEmpty, "a refusal with no problem")
        }
    }
}

import CanteenCore

// Orders are rendered for every order placed and tickets for every display poll: these write
// themselves without `JSONEncoder`, member by member in the sorted order `JSONEncoder` uses.
// Tests check both renderings are the same bytes.

extension MoneyDTO: JSONWritable {
    func write(to json: inout JSONWriter) {
        json.object { object in
            object.field("amount", amount)
            object.field("currency", currency)
            object.field("formatted", formatted)
        }
    }
}

extension PickupWindowDTO: JSONWritable {
    func write(to json: inout JSONWriter) {
        json.object { object in
            object.field("end", end)
            object.field("label", label)
            object.field("start", start)
        }
    }
}

extension OrderDTO: JSONWritable {
    func write(to json: inout JSONWriter) {
        json.object { object in
            object.field("cafeId", cafeId)
            object.field("createdAt", createdAt)
            object.field("customer", customer)
            object.field("id", id)
            object.field("lines", lines)
            object.field("number", number)
            object.field("pickup", pickup)
            object.field("readyAt", readyAt)
            object.field("status", status)
            object.field("statusLabel", statusLabel)
            object.field("subtotal", subtotal)
            object.field("tax", tax)
            object.field("taxIncluded", taxIncluded)
            object.field("tickets", tickets)
            object.field("total", total)
        }
    }
}

extension OrderDTO.Line: JSONWritable {
    func write(to json: inout JSONWriter) {
        json.object { object in
            object.field("couponId", couponId)
            object.field("itemId", itemId)
            object.field("kind", kind)
            object.field("lineTotal", lineTotal)
            object.field("name", name)
            object.field("note", note)
            object.field("options", options)
            object.field("quantity", quantity)
            object.field("station", station)
            object.field("unitPrice", unitPrice)
        }
    }
}

extension OrderDTO.Option: JSONWritable {
    func write(to json: inout JSONWriter) {
        json.object { object in
            object.field("groupId", groupId)
            object.field("id", id)
            object.field("name", name)
            object.field("priceDelta", priceDelta)
        }
    }
}

extension OrderDTO.TicketRef: JSONWritable {
    func write(to json: inout JSONWriter) {
        json.object { object in
            object.field("fireAt", fireAt)
            object.field("id", id)
            object.field("station", station)
            object.field("status", status)
        }
    }
}

extension TicketDTO: JSONWritable {
    func write(to json: inout JSONWriter) {
        json.object { object in
            object.field("cafeId", cafeId)
            object.field("createdAt", createdAt)
            object.field("customerName", customerName)
            object.field("fireAt", fireAt)
            object.field("firedAt", firedAt)
            object.field("id", id)
            object.field("lines", lines)
            object.field("orderId", orderId)
            object.field("orderNumber", orderNumber)
            object.field("pickup", pickup)
            object.field("prepSeconds", prepSeconds)
            object.field("sequence", sequence)
            object.field("station", station)
            object.field("status", status)
            object.field("statusLabel", statusLabel)
            object.field("updatedAt", updatedAt)
        }
    }
}

extension TicketDTO.Line: JSONWritable {
    func write(to json: inout JSONWriter) {
        json.object { object in
            object.field("itemId", itemId)
            object.field("name", name)
            object.field("note", note)
            object.field("options", options)
            object.field("quantity", quantity)
        }
    }
}

extension TicketFeedDTO: JSONWritable {
    func write(to json: inout JSONWriter) {
        json.object { object in
            object.field("cursor", cursor)
            object.field("tickets", tickets)
        }
    }
}

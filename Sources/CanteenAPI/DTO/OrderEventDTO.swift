import CanteenCore
import CanteenJSON
import Foundation

/// An order event as webhooks and an order's event stream send it: its id, type, sequence,
/// time, and the order as the API shows it just after the event.
struct OrderEventDTO: JSONWritable {
    let event: OrderEvent
    let order: OrderDTO

    init(_ event: OrderEvent, order: Order, cafe: Cafe, presentation: Presentation) {
        self.event = event
        self.order = OrderDTO(event.applied(to: order), cafe: cafe, presentation: presentation)
    }

    func write(to json: inout JSONWriter) {
        json.object { object in
            object.field("createdAt", event.createdAt)
            object.field("data", order)
            object.field("id", event.id)
            object.field("sequence", event.sequence)
            object.field("type", event.type.rawValue)
        }
    }
}

/// Renders order events for webhooks, after their commit and outside the database writer.
public struct OrderEventRenderer: Sendable {
    private let orders: any OrderRepository
    private let cafes: any CafeRepository
    private let presenter: Presenter

    public init(services: APIServices) {
        orders = services.orders
        cafes = services.cafes
        presenter = services.presenter
    }

    /// The JSON body of a webhook delivery of `event`, in its café's default language.
    public func webhookBody(_ event: OrderEvent) async throws -> [UInt8] {
        guard let order = try await orders.order(id: event.orderID) else {
            throw CanteenError.notFound(.order, event.orderID)
        }
        guard let cafe = try await cafes.cafe(id: event.cafeID)?.cafe else {
            throw CanteenError.notFound(.cafe, event.cafeID)
        }
        let presentation = presenter.presentation(acceptLanguage: nil, cafe: cafe)
        return JSONWriter.encode(
            OrderEventDTO(event, order: order, cafe: cafe, presentation: presentation), capacity: 2048)
    }
}

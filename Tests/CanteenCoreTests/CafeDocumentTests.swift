import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import Testing

@Suite("Café file validation")
struct CafeDocumentTests {
    /// Problems of a bent test document, as `path: message` lines.
    func problems(_ bend: (inout [String: JSONValue]) -> Void) -> [ValidationProblem] {
        var document = Fixtures.cafeDocument()
        bend(&document)
        do {
            _ = try CafeDocument.parse(.object(document))
            return []
        } catch {
            return error.problems
        }
    }

    func item(_ document: inout [String: JSONValue], _ index: Int, _ change: (inout [String: JSONValue]) -> Void) {
        guard case .array(var items) = document["items"], case .object(var item) = items[index] else {
            Issue.record("fixture has no item \(index)")
            return
        }
        change(&item)
        items[index] = .object(item)
        document["items"] = .array(items)
    }

    @Test("the fixture café is valid and reads back its fields")
    func validFixture() throws {
        let (cafe, menu) = try CafeDocument.parse(.object(Fixtures.cafeDocument()))
        #expect(cafe.id == "testcafe")
        #expect(cafe.currency == .usd)
        #expect(cafe.tax == TaxPolicy(rateBasisPoints: 1025, included: false))
        #expect(
            cafe.hours[.monday] == [
                LocalTimeRange(start: LocalTime(hour: 7, minute: 0), end: LocalTime(hour: 19, minute: 0))
            ])
        #expect(cafe.hours[.saturday] == nil)
        #expect(menu.items.map(\.id) == ["latte", "burrito", "salad"])
        #expect(menu.item("latte")?.modifierGroups.map(\.id) == ["size", "shots"])
        #expect(menu.item("burrito")?.dayParts == ["breakfast"])
    }

    @Test("a misspelt field is reported as unknown with its path")
    func unknownField() {
        let found = problems { doc in item(&doc, 1) { $0["pirce"] = 5 } }
        #expect(
            found.contains(ValidationProblem(path: "items[1].pirce", message: "unknown field", code: .unknownField)))
    }

    @Test("a missing field is reported as required")
    func missingField() {
        let found = problems { doc in doc.removeValue(forKey: "timeZone") }
        #expect(found.map(\.path) == ["timeZone"])
        #expect(found.first?.code == .missingField)
    }

    @Test("an unknown currency code is rejected")
    func unknownCurrency() {
        let found = problems { $0["currency"] = "XYZ" }
        #expect(found.first?.path == "currency")
        #expect(found.first?.code == .unknownCurrency)
    }

    @Test("an unknown time zone is rejected")
    func unknownTimeZone() {
        let found = problems { $0["timeZone"] = "Mars/Olympus_Mons" }
        #expect(found.first?.path == "timeZone")
        #expect(found.first?.code == .unknownTimeZone)
    }

    @Test("a fractional JPY price says JPY has no minor units")
    func fractionalYen() {
        let found = problems { doc in
            doc["currency"] = "JPY"
            item(&doc, 0) { $0["price"] = .double(450.5) }
        }
        #expect(found.map(\.description) == ["items[0].price: JPY has no minor units; expected a whole number"])
    }

    @Test("a fractional USD price asks for whole cents")
    func fractionalDollars() {
        let found = problems { doc in item(&doc, 0) { $0["price"] = .double(4.5) } }
        #expect(found.first?.path == "items[0].price")
        #expect(found.first?.message.contains("USD") == true)
    }

    @Test("a negative price is rejected")
    func negativePrice() {
        let found = problems { doc in item(&doc, 2) { $0["price"] = -1 } }
        #expect(found.first?.path == "items[2].price")
        #expect(found.first?.code == .outOfRange)
    }

    @Test("duplicate item ids are rejected")
    func duplicateIDs() {
        let found = problems { doc in item(&doc, 2) { $0["id"] = "latte" } }
        #expect(found.map(\.path) == ["items[2].id"])
        #expect(found.first?.code == .duplicateId)
    }

    @Test("a modifier group with min above max is rejected")
    func minAboveMax() {
        let found = problems { doc in
            item(&doc, 0) { item in
                guard case .array(var groups) = item["modifierGroups"], case .object(var group) = groups[1] else {
                    return
                }
                group["min"] = 3
                group["max"] = 2
                groups[1] = .object(group)
                item["modifierGroups"] = .array(groups)
            }
        }
        #expect(found.contains { $0.path == "items[0].modifierGroups[1].min" && $0.code == .minExceedsMax })
    }

    @Test("an item without a station is rejected")
    func missingStation() {
        let found = problems { doc in item(&doc, 1) { $0.removeValue(forKey: "station") } }
        #expect(found.map(\.path) == ["items[1].station"])
    }

    @Test("a day part outside every day's opening hours is rejected")
    func dayPartOutsideHours() {
        let found = problems { doc in
            doc["dayParts"] = [
                ["id": "breakfast", "names": ["en": "Early", "es": "Temprano"], "start": "05:00", "end": "06:30"]
            ]
        }
        #expect(found.map(\.path) == ["dayParts[0]"])
        #expect(found.first?.code == .dayPartOutsideHours)
    }

    @Test("a text missing one of the café's languages is rejected")
    func missingTranslation() {
        let found = problems { doc in item(&doc, 2) { $0["names"] = ["en": "Salad"] } }
        #expect(found.map(\.path) == ["items[2].names.es"])
        #expect(found.first?.code == .missingTranslation)
    }

    @Test("an item in a category that does not exist is rejected")
    func unknownCategory() {
        let found = problems { doc in item(&doc, 2) { $0["category"] = "desserts" } }
        #expect(found.map(\.path) == ["items[2].category"])
    }

    @Test("every problem of a document is reported, not just the first")
    func allProblems() {
        let found = problems { doc in
            doc["currency"] = "EURO"
            doc["timeZone"] = "Europe/Pariss"
            item(&doc, 1) { $0.removeValue(forKey: "station") }
        }
        #expect(Set(found.map(\.path)) == ["currency", "timeZone", "items[1].station"])
    }

    @Test("a value of the wrong type names the expected type")
    func wrongType() {
        let found = problems { doc in doc["tax"] = "8.25%" }
        #expect(found.map(\.description) == ["tax: expected an object, found a string"])
    }

    @Test("opening spans that close before they open are rejected")
    func backwardsHours() {
        let found = problems { doc in doc["hours"] = ["monday": [["open": "19:00", "close": "07:00"]]] }
        #expect(found.contains { $0.path == "hours.monday[0]" })
    }

    @Test("a menu body alone is checked against its café's languages and currency")
    func menuAlone() throws {
        let (cafe, _) = try Fixtures.cafeAndMenu()
        var menu = Fixtures.menuDocument()
        menu["currency"] = "USD"
        #expect(throws: ValidationError.self) { try CafeDocument.parseMenu(.object(menu), cafe: cafe) }
        let parsed = try CafeDocument.parseMenu(.object(Fixtures.menuDocument()), cafe: cafe)
        #expect(parsed.items.count == 3)
    }

    @Test("the sample cafés in Menus/ are all valid")
    func sampleCafes() throws {
        let fileManager = FileManager.default
        let names = try fileManager.contentsOfDirectory(atPath: Fixtures.menusDirectory.path).filter {
            $0.hasSuffix(".json")
        }
        #expect(names.count >= 5)
        var currencies: Set<String> = []
        for name in names {
            let data = try Data(contentsOf: Fixtures.menusDirectory.appendingPathComponent(name))
            let (cafe, menu) = try CafeDocument.parse(try JSONValue.parse(data))
            #expect(menu.items.count >= 20, "\(name) has \(menu.items.count) items")
            #expect(cafe.names.translations.count >= 3, "\(name) names")
            currencies.insert(cafe.currency.code)
        }
        #expect(currencies.isSuperset(of: ["USD", "JPY", "EUR", "KWD"]))
    }
}

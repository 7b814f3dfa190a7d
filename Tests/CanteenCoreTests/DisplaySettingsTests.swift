import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Testing

@Suite("A café's display settings")
struct DisplaySettingsTests {
    func parse(_ display: JSONValue?) throws -> Cafe {
        var document = Fixtures.cafeDocument()
        document["display"] = display
        return try CafeDocument.parse(.object(document)).cafe
    }

    func problems(_ display: JSONValue) -> [ValidationProblem] {
        do {
            _ = try parse(display)
            return []
        } catch let error as ValidationError {
            return error.problems
        } catch {
            return [ValidationProblem(path: "", message: "\(error)")]
        }
    }

    @Test("without display a café gets 5 and 8 minutes for ticket ages and 10 on the board")
    func defaults() throws {
        #expect(try parse(nil).display == .standard)
        #expect(try parse(.null).display == .standard)
        #expect(
            DisplaySettings.standard
                == DisplaySettings(ticketWarningMinutes: 5, ticketLateMinutes: 8, boardReadyMinutes: 10))
    }

    @Test("each field given replaces its default; the others keep theirs")
    func partial() throws {
        let cafe = try parse(["ticketLateMinutes": 12, "boardReadyMinutes": 3])
        #expect(cafe.display == DisplaySettings(ticketWarningMinutes: 5, ticketLateMinutes: 12, boardReadyMinutes: 3))
    }

    static let invalidCases: [(JSONValue, String)] = [
        (["ticketWarningMinutes": 0], "display.ticketWarningMinutes"),
        (["boardReadyMinutes": 241], "display.boardReadyMinutes"),
        (["ticketLateMinutes": .double(2.5)], "display.ticketLateMinutes"),
        (["ticketWarningMinutes": 9], "display.ticketLateMinutes"),
        (["colour": "red"], "display.colour"),
        ("fast", "display"),
    ]

    @Test("bad settings are named by their path", arguments: invalidCases)
    func invalid(display: JSONValue, path: String) {
        #expect(problems(display).map(\.path).contains(path), "\(problems(display))")
    }
}

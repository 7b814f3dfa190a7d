import Foundation
import Testing

@Suite("canteen format")
struct FormatCommandTests {
    @Test(
        "a negative amount formats as typed, in any argument order, with or without --",
        arguments: [
            ["format", "price", "-5000", "--currency", "USD", "--locale", "en_US"],
            ["format", "price", "--currency", "USD", "-5000", "--locale", "en_US"],
            ["format", "price", "--currency", "USD", "--locale", "en_US", "-5000"],
            ["format", "price", "--currency", "USD", "--locale", "en_US", "--", "-5000"],
        ])
    func negativeAmounts(arguments: [String]) throws {
        let result = try CanteenProcess.run(arguments)
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == "-$50.00\n")
    }

    @Test("a positive amount still formats in the reader's conventions, and a yen refund has no decimals")
    func otherAmounts() throws {
        #expect(
            try CanteenProcess.run(["format", "price", "123456789", "--currency", "INR", "--locale", "hi_IN"]).output
                == "₹12,34,567.89\n")
        let yen = try CanteenProcess.run(["format", "price", "-450", "--currency", "JPY", "--locale", "ja_JP"]).output
        #expect(yen.hasPrefix("-") && yen.hasSuffix("450\n") && !yen.contains("."), "\(yen)")
    }

    @Test(
        "no amount, two amounts or a word is refused with exit 2 and a message saying what was wrong",
        arguments: [
            (["format", "price", "--currency", "USD", "--locale", "en_US"], "give one amount"),
            (["format", "price", "1", "2", "--currency", "USD", "--locale", "en_US"], "not 1 2"),
            (["format", "price", "ten", "--currency", "USD", "--locale", "en_US"], "'ten' is not a whole number"),
        ])
    func refusals(arguments: [String], message: String) throws {
        let result = try CanteenProcess.run(arguments)
        #expect(result.status == 2)
        #expect(result.output.isEmpty)
        #expect(result.errors.contains(message), "\(result.errors)")
    }
}

import ArgumentParser
import CanteenCore
import CanteenFormat
import Foundation

/// `canteen format price|pickup`: one price or pickup window, formatted as the API shows it.
struct FormatCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "format",
        abstract: "Format a price or a pickup window for a locale.",
        subcommands: [Price.self, Pickup.self])

    /// Exit status for a bad currency, locale, time zone or amount.
    static let invalidInput = ExitCode(2)

    /// Prints `error` on stderr and fails with exit status 2.
    static func fail(_ error: CanteenError) -> ExitCode {
        FileHandle.standardError.write(Data("canteen format: \(error.message)\n".utf8))
        return invalidInput
    }
}

// MARK: - Subcommands

extension FormatCommand {
    /// `canteen format price 123456789 --currency INR --locale hi_IN` → `₹12,34,567.89`.
    struct Price: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Format an amount of minor units (cents, yen, fils) of a currency.",
            discussion:
                "Negative amounts are typed as they are, anywhere: canteen format price -450 --currency USD --locale en_US"
        )

        /// Everything that is not an option: the amount, which may be negative (`-450` would
        /// otherwise read as short options).
        @Argument(
            parsing: .allUnrecognized,
            help: ArgumentHelp(
                "The amount in minor units (450 is $4.50; 450 is ¥450; -450 is a refund).",
                valueName: "minor-units"))
        var amount: [String] = []

        @Option(help: "ISO 4217 currency code (USD, JPY, KWD).")
        var currency: String

        @Option(help: "The reader's locale (en_US, hi_IN, ar-EG-u-nu-latn).")
        var locale: String

        func run() throws {
            do throws(CanteenError) {
                let amount = self.amount.filter { $0 != "--" }  // `-- -450` still works
                guard amount.count == 1 else {
                    throw CanteenError(
                        .invalid, code: .invalidAmount,
                        message: amount.isEmpty
                            ? "give one amount in minor units"
                            : "give one amount in minor units, not \(amount.joined(separator: " "))")
                }
                let minorUnits = try FormatInput.minorUnits(amount[0])
                let currency = try Currency(code: self.currency)
                let locale = try FormatInput.locale(self.locale)
                print(PriceFormatter().format(Money(minorUnits: minorUnits, currency: currency), locale: locale))
            } catch {
                throw FormatCommand.fail(error)
            }
        }
    }

    /// `canteen format pickup 2026-03-08T07:45:00Z 2026-03-08T08:00:00Z --time-zone America/Chicago --locale en_US`.
    struct Pickup: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Format a pickup window as wall-clock times in a café's time zone.")

        @Argument(help: "Start of the window, RFC 3339 (2026-03-08T07:45:00Z).")
        var start: String

        @Argument(help: "End of the window, RFC 3339.")
        var end: String

        @Option(help: "The café's IANA time zone (America/Chicago).")
        var timeZone: String

        @Option(help: "The reader's locale (en_US, ja_JP).")
        var locale: String

        func run() throws {
            do throws(CanteenError) {
                let start = try FormatInput.instant(self.start)
                let end = try FormatInput.instant(self.end)
                let timeZone = try FormatInput.timeZone(self.timeZone)
                let locale = try FormatInput.locale(self.locale)
                print(PickupWindowFormatter().label(start: start, end: end, timeZone: timeZone, locale: locale))
            } catch {
                throw FormatCommand.fail(error)
            }
        }
    }
}

import ArgumentParser
import CardReader
import Foundation
import NFC

// MARK: - NFCCommand

/// `canteen nfc …`: PC/SC readers, reading cards and tags, writing coupon tags.
struct NFCCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nfc",
        abstract:
            "List PC/SC readers, read NFC cards and tags, write coupon tags, run the kiosk's NFC agent (needs pcscd).",
        subcommands: [Readers.self, Read.self, WriteCoupon.self, Watch.self])

    /// Output formats of `nfc read` and `nfc write-coupon`.
    enum OutputFormat: String, ExpressibleByArgument, CaseIterable {
        case table
        case json
    }

    /// `--reader` and `--timeout`, shared by the commands that wait for a card.
    struct ReaderOptions: ParsableArguments {
        @Option(help: "Reader name (or its start), as `canteen nfc readers` lists it; the first reader by default.")
        var reader: String?

        @Option(help: "Seconds to wait for a card in the field.")
        var timeout: Double = 10

        /// Waits for a card and connects to it.
        func connect() async throws(CardReaderError) -> any CardConnection {
            let device = try await PCSCContext().reader(named: reader)
            guard try await device.waitForCard(timeout: timeout) else {
                throw CardReaderError(code: "timeout", message: "no card in \(device.name) after \(timeout) s")
            }
            return try await device.connect()
        }
    }

    /// Runs a command; reader and card errors go to stderr as `error: message [code]`, exit status 1.
    static func reporting(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as CardReaderError {
            FileHandle.standardError.write(Data("error: \(error.message) [\(error.code)]\n".utf8))
            throw ExitCode.failure
        }
    }

    static func print(_ report: CardReport, format: OutputFormat) throws {
        switch format {
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            Swift.print(String(decoding: try encoder.encode(report), as: UTF8.self))
        case .table:
            Swift.print("technology  \(report.technology.rawValue)")
            Swift.print("identifier  \(report.identifier)")
            Swift.print("ndef        \(report.ndefStatus.rawValue), capacity \(report.capacity) bytes")
            for record in report.ndef {
                let value = record.uri ?? record.text.map { "\"\($0)\" (\(record.language ?? ""))" } ?? record.payload
                Swift.print("  record    \(record.tnf) \(record.type): \(value)")
            }
            if let balance = report.balance {
                Swift.print("balance     \(balance.minorUnits) \(balance.currency)")
            }
            for entry in report.history {
                Swift.print(
                    "  history   \(entry.date)  \(entry.kind.padding(toLength: 9, withPad: " ", startingAt: 0))  balance \(entry.balance.minorUnits) \(entry.balance.currency)"
                )
            }
        }
    }

    // MARK: - readers

    struct Readers: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the PC/SC readers.")

        func run() async throws {
            try await NFCCommand.reporting {
                for name in try await PCSCContext().readers() { Swift.print(name) }
            }
        }
    }

    // MARK: - read

    struct Read: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Wait for a card and show its technology, identifier, NDEF records, transit balance and history.")

        @OptionGroup var options: ReaderOptions

        @Option(help: "table or json.")
        var format: OutputFormat = .table

        func run() async throws {
            try await NFCCommand.reporting {
                let card = try await options.connect()
                try NFCCommand.print(try await CardInspector().report(card), format: format)
            }
        }
    }

    // MARK: - write-coupon

    struct WriteCoupon: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "write-coupon",
            abstract: "Write a coupon (URI record + Text record) to an NTAG or ISO 15693 tag and verify it.")

        @OptionGroup var options: ReaderOptions

        @Option(help: "The coupon's URL (the URI record); a kiosk reads the code from its coupon= parameter.")
        var url: String?

        @Option(help: "A coupon code from POST /v1/coupons: the URL becomes SERVER/kiosk?coupon=CODE.")
        var coupon: String?

        @Option(help: "The server's public address, for --coupon (e.g. https://canteen.example).")
        var server: String?

        @Option(help: "The coupon's description (the Text record).")
        var text: String

        @Option(help: "Language code of the text.")
        var language: String = "en"

        @Flag(help: "Make the tag read-only after the write verified.")
        var lock = false

        @Option(help: "table or json.")
        var format: OutputFormat = .table

        func validate() throws {
            switch (url, coupon, server) {
            case (_?, nil, nil), (nil, _?, _?): break
            default: throw ValidationError("give --url, or --coupon with --server")
            }
        }

        /// The URI record's text: `--url` as given, or the kiosk page with the coupon's code.
        var uri: String {
            if let url { return url }
            var components = URLComponents(string: server ?? "") ?? URLComponents()
            components.path =
                (components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path)
                + "/kiosk"
            components.queryItems = [URLQueryItem(name: "coupon", value: coupon)]
            return components.string ?? ""
        }

        func run() async throws {
            try await NFCCommand.reporting {
                let message: NDEFMessage
                do {
                    message = NDEFMessage(records: [
                        URIRecord(uri: uri).record,
                        try TextRecord(text: text, language: language).record(),
                    ])
                } catch {
                    throw ValidationError("\(error)")
                }
                let card = try await options.connect()
                let report = try await NDEFTagWriter().write(message, to: card, lock: lock) { notice in
                    FileHandle.standardError.write(Data("\(notice)\n".utf8))
                }
                try NFCCommand.print(report, format: format)
            }
        }
    }
}

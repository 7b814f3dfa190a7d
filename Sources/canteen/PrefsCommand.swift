import ArgumentParser
import CanteenApp
import CanteenCore
import CanteenJSON
import Foundation

/// `canteen prefs get|set|delete|export|import`: a user's preferences on the local database.
struct PrefsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prefs", abstract: "Read and write users' preferences.",
        subcommands: [Get.self, SetKey.self, Delete.self, Export.self, Import.self])

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print one key as JSON, or every key the user sees as KEY<TAB>SOURCE<TAB>JSON lines.")
        @OptionGroup var data: DataOptions
        @Argument(help: "The user's id.") var user: String
        @Argument(help: "One key (all keys when omitted).") var key: String?

        func run() async throws {
            try await data.withStores { stores in
                let preferences = stores.preferences
                try UserID.validate(user)
                if let key {
                    guard let resolved = try await preferences.preference(userID: user, key: key) else {
                        throw PreferenceKey.notFound(key)
                    }
                    print(String(decoding: resolved.value.encoded(), as: UTF8.self))
                } else {
                    let merged = try await preferences.merged(userID: user)
                    for key in merged.values.keys.sorted() {
                        let value = String(decoding: (merged.values[key] ?? .null).encoded(), as: UTF8.self)
                        print([key, merged.sources[key]?.rawValue ?? "", value].joined(separator: "\t"))
                    }
                }
            }
        }
    }

    struct SetKey: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Set one key of the user's own document to a JSON value.")
        @OptionGroup var data: DataOptions
        @Argument(help: "The user's id.") var user: String
        @Argument(help: "The key.") var key: String
        @Argument(help: "The value as JSON: '\"nearest\"', '42', '{\"a\": [1]}'.") var json: String

        func run() async throws {
            try await data.withStores { stores in
                let preferences = stores.preferences
                try UserID.validate(user)
                let value = try JSONValue.parse(Data(json.utf8))
                let document = try await preferences.update(userID: user, changes: [key: .set(value)], condition: nil)
                print("set \(key) for \(user) (version \(document.version))")
            }
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove one key from the user's own document (site and registered defaults then answer).")
        @OptionGroup var data: DataOptions
        @Argument(help: "The user's id.") var user: String
        @Argument(help: "The key.") var key: String

        func run() async throws {
            try await data.withStores { stores in
                let preferences = stores.preferences
                try UserID.validate(user)
                guard try await preferences.document(userID: user).values[key] != nil else {
                    throw PreferenceKey.notFound(key)
                }
                let document = try await preferences.update(userID: user, changes: [key: .remove], condition: nil)
                print("deleted \(key) for \(user) (version \(document.version))")
            }
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the user's own document as JSON on stdout (site and registered defaults left out).")
        @OptionGroup var data: DataOptions
        @Argument(help: "The user's id.") var user: String

        func run() async throws {
            try await data.withStores { stores in
                let exported = try await PreferenceFiles.export(userID: user, from: stores.preferences)
                FileHandle.standardOutput.write(exported)
            }
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace the user's document with a JSON file, validated whole (any problem changes nothing).")
        @OptionGroup var data: DataOptions
        @Argument(help: "The user's id.") var user: String
        @Argument(help: "A JSON object of keys to values, as `export` prints.") var file: String

        func run() async throws {
            try await data.withStores { stores in
                let contents = try Data(contentsOf: URL(fileURLWithPath: file))
                let document: PreferenceDocument
                do {
                    document = try await PreferenceFiles.importDocument(
                        contents, userID: user,
                        into: stores.preferences)
                } catch var error as CanteenError {
                    // A file that is cut short or not JSON: say which file.
                    error.message =
                        "\(file): \(error.message.replacingOccurrences(of: "the body is", with: "the file is"))"
                    throw error
                }
                print("imported \(document.values.count) preferences for \(user) (version \(document.version))")
            }
        }
    }
}

import ArgumentParser
import CanteenApp
import CanteenCore
import Foundation

/// `canteen menus validate|import DIR`.
struct MenusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "menus", abstract: "Check and import café files.", subcommands: [Validate.self, Import.self])

    struct Validate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check every café file; print each problem as FILE: JSON.PATH: what is wrong.")
        @Argument(help: "Folder of café files.") var directory: String

        func run() async throws {
            switch CafeFiles.load(directory: URL(fileURLWithPath: directory)) {
            case .success(let documents):
                print("\(documents.count) café files are valid")
            case .failure(let invalid):
                reportProblems(invalid)
                throw ExitCode.failure
            }
        }
    }

    struct Import: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Validate, then replace the cafés the files name, in one transaction.")
        @OptionGroup var data: DataOptions
        @Argument(help: "Folder of café files.") var directory: String

        func run() async throws {
            switch CafeFiles.load(directory: URL(fileURLWithPath: directory)) {
            case .success(let documents):
                try await data.withStores { try await $0.cafes.importCafes(documents) }
                print("imported \(documents.count) cafés: \(documents.map(\.cafe.id).joined(separator: ", "))")
            case .failure(let invalid):
                reportProblems(invalid)
                FileHandle.standardError.write(Data("nothing was imported\n".utf8))
                throw ExitCode.failure
            }
        }
    }
}

func reportProblems(_ invalid: CafeFiles.FilesInvalid) {
    for problem in invalid.problems {
        FileHandle.standardError.write(Data("\(problem)\n".utf8))
    }
}

import CanteenCore
import CanteenJSON
import Foundation

/// Reads a folder of café files (`Menus/*.json`), validating each.
public enum CafeFiles {
    /// One problem in one file: `Menus/tokyo.json: items[3].price: JPY has no minor units…`.
    public struct Problem: Sendable, CustomStringConvertible {
        public var file: String
        public var path: String
        public var message: String

        public var description: String {
            path.isEmpty ? "\(file): \(message)" : "\(file): \(path): \(message)"
        }
    }

    /// The cafés of every `.json` file in `directory` (sorted by file name), or every problem found.
    public static func load(directory: URL) -> Result<[(cafe: Cafe, menu: Menu)], FilesInvalid> {
        let fileManager = FileManager.default
        let shown = directory.relativePath
        guard let names = try? fileManager.contentsOfDirectory(atPath: directory.path) else {
            return .failure(
                FilesInvalid(problems: [Problem(file: shown, path: "", message: "cannot read this folder")]))
        }
        let files = names.filter { $0.hasSuffix(".json") }.sorted()
        if files.isEmpty {
            return .failure(
                FilesInvalid(problems: [Problem(file: shown, path: "", message: "holds no .json café files")]))
        }
        var problems: [Problem] = []
        var documents: [(cafe: Cafe, menu: Menu)] = []
        var fileOfCafe: [String: String] = [:]
        for name in files {
            let file = (shown as NSString).appendingPathComponent(name)
            do {
                let data = try Data(contentsOf: directory.appendingPathComponent(name))
                let value = try JSONValue.parse(data)
                let document = try CafeDocument.parse(value)
                if let other = fileOfCafe[document.cafe.id] {
                    problems.append(
                        Problem(
                            file: file, path: "id",
                            message: "duplicate café id '\(document.cafe.id)' (also in \(other))"))
                }
                fileOfCafe[document.cafe.id] = file
                documents.append(document)
            } catch let error as ValidationError {
                problems += error.problems.map { Problem(file: file, path: $0.path, message: $0.message) }
            } catch let error as CanteenError {
                problems.append(Problem(file: file, path: "", message: error.message))
            } catch {
                problems.append(Problem(file: file, path: "", message: "cannot read: \(error.localizedDescription)"))
            }
        }
        problems += beaconClashes(documents, fileOfCafe: fileOfCafe)
        return problems.isEmpty ? .success(documents) : .failure(FilesInvalid(problems: problems))
    }

    /// Two cafés claiming the same beacon region (UUID + major) cannot be told apart.
    private static func beaconClashes(_ documents: [(cafe: Cafe, menu: Menu)], fileOfCafe: [String: String])
        -> [Problem]
    {
        var owner: [BeaconRegion: String] = [:]
        var problems: [Problem] = []
        for document in documents {
            let region = document.cafe.beaconRegion
            if let other = owner[region] {
                problems.append(
                    Problem(
                        file: fileOfCafe[document.cafe.id] ?? "", path: "beaconRegion.major",
                        message: "major \(region.major) is already used by café '\(other)'"))
            }
            owner[region] = document.cafe.id
        }
        return problems
    }

    /// Every problem of a folder of café files.
    public struct FilesInvalid: Error, Sendable, CustomStringConvertible {
        public var problems: [Problem]
        public var description: String { problems.map(\.description).joined(separator: "\n") }
    }
}

import CanteenAPI
import CanteenTestSupport
import Foundation
import Testing

@Suite("openapi.yaml")
struct OpenAPIDocumentTests {
    /// `METHOD /path` for every operation under `paths:` (two-space paths, four-space methods).
    static func documentedOperations() throws -> Set<String> {
        let text = try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("openapi.yaml"), encoding: .utf8)
        var operations: Set<String> = []
        var inPaths = false
        var currentPath: String?
        let methods: Set<String> = ["get", "put", "post", "patch", "delete", "head", "options"]
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if !line.hasPrefix(" ") && !line.isEmpty { inPaths = line.hasPrefix("paths:"); continue }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), line.hasSuffix(":"), !line.hasPrefix("   ") {
                currentPath = String(line.dropFirst(2).dropLast())
            } else if line.hasPrefix("    "), !line.hasPrefix("     "), let path = currentPath {
                let key = line.trimmingCharacters(in: .whitespaces).dropLast()
                if line.hasSuffix(":"), methods.contains(String(key)) { operations.insert("\(key.uppercased()) \(path)") }
            }
        }
        return operations
    }

    @Test("every route the router serves is in openapi.yaml, and every documented route is served")
    func routesMatchDocument() async throws {
        let environment = try await TestEnvironment.make()
        let served = CanteenRouter.build(environment.services).openAPIOperations
        let documented = try Self.documentedOperations()
        #expect(served.subtracting(documented).sorted() == [], "served but not documented")
        #expect(documented.subtracting(served).sorted() == [], "documented but not served")
        #expect(served.count >= 7)
    }
}

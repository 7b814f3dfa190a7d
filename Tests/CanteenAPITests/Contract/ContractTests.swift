import CanteenAPI
import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing

/// `openapi.yaml` is the API's contract: these tests read it with a YAML parser and check the
/// router (every route, its path parameters) and the server's real answers (every status and body
/// of a tour that calls every operation) against it. A route the document lacks, a status it does
/// not list, a member its schema does not allow, or an operation the tour never calls fails.
@Suite("openapi.yaml is the contract")
struct ContractTests {
    let document = OpenAPIDocument.repository

    // MARK: - The document and the router

    @Test(
        "every route the router serves is documented with the same path parameters, and every documented route is served"
    )
    func routesMatchDocument() async throws {
        let environment = try await TestEnvironment.make()
        let served = CanteenRouter.build(environment.services).openAPIOperations
        let documented = Set(document.operations.keys)
        #expect(served.subtracting(documented).sorted() == [], "served but not documented")
        #expect(documented.subtracting(served).sorted() == [], "documented but not served")
        #expect(served.count >= 30)
    }

    @Test("every path parameter of a route's pattern is documented as a required path parameter, and no other")
    func pathParametersMatchPatterns() {
        for operation in document.operations.values {
            let inPattern = Set(
                operation.path.split(separator: "/").filter { $0.hasPrefix("{") }
                    .map { String($0.dropFirst().dropLast()) })
            let pathParameters = operation.parameters.filter { $0.location == "path" }
            #expect(Set(pathParameters.map(\.name)) == inPattern, "\(operation.key)")
            #expect(pathParameters.allSatisfy { $0.required }, "\(operation.key): path parameters are required")
        }
    }

    @Test("every schema in the document uses only keywords the contract checks, and every $ref resolves")
    func schemasAreCheckable() throws {
        var problems: [String] = []
        let root = document.root
        func schema(_ value: JSONValue, _ path: String) {
            guard case .object(let keywords) = value else { return }
            for keyword in keywords.keys where !SchemaValidator.knownKeywords.contains(keyword) {
                problems.append("\(path) uses \(keyword)")
            }
            for (name, member) in keywords {
                switch (name, member) {
                case ("properties", .object(let properties)):
                    for (property, child) in properties { schema(child, "\(path).properties.\(property)") }
                case ("items", _), ("additionalProperties", .object):
                    schema(member, "\(path).\(name)")
                case ("allOf", .array(let parts)), ("anyOf", .array(let parts)), ("oneOf", .array(let parts)):
                    for (index, part) in parts.enumerated() { schema(part, "\(path).\(name)[\(index)]") }
                default:
                    break
                }
            }
        }
        func walk(_ value: JSONValue, _ path: String) {
            switch value {
            case .object(let members):
                if case .string(let reference)? = members["$ref"] {
                    do { _ = try OpenAPIDocument.resolve(value, in: root) } catch {
                        problems.append("\(path): \(reference) does not resolve")
                    }
                }
                for (name, member) in members {
                    if name == "schema" || path == "$.components.schemas" { schema(member, "\(path).\(name)") }
                    walk(member, "\(path).\(name)")
                }
            case .array(let elements):
                for (index, element) in elements.enumerated() { walk(element, "\(path)[\(index)]") }
            default:
                break
            }
        }
        walk(root, "$")
        #expect(problems == [])
    }

    @Test("an operation that needs a token documents 401, and one with a JSON body documents 400, 413 and 415")
    func commonStatusesDocumented() {
        for operation in document.operations.values.sorted(by: { $0.key < $1.key }) {
            if operation.needsToken {
                #expect(operation.responses["401"] != nil, "\(operation.key) lacks 401")
            }
            if operation.requestBody?["application/json"] != nil {
                for status in ["400", "413", "415"] {
                    #expect(operation.responses[status] != nil, "\(operation.key) lacks \(status)")
                }
            }
        }
    }

    // MARK: - The server's answers

    @Test("a tour calling every documented operation gets only documented statuses, media types and bodies")
    func tourConformsToDocument() async throws {
        let environment = try await TestEnvironment.make(webhookPolicy: TestEnvironment.loopbackWebhooks)
        let contract = ContractRecorder(document: document)
        // People sign in with the test identity provider (a real one on loopback).
        let provider = try TestIdentityProvider(redirectURIs: [SignInFixture.defaultPublicURL + "/auth/callback"])
        defer { provider.stop() }
        var services = environment.services
        services.identity = try await SignInFixture.identity(environment, provider)
        try await Application(router: CanteenRouter.build(services).router).test(.router) { client in
            try await ContractTour(client: client, environment: environment, contract: contract, provider: provider)
                .run()
        }
        let report = contract.report()
        #expect(report.problems == [])
        let untried = Set(document.operations.keys).subtracting(report.succeeded)
        #expect(untried.sorted() == [], "documented operations the tour never called successfully")
    }

    @Test("every operation answers its documented 401 without a token, and its 400, 413 and 415 to bad bodies")
    func commonErrorsConform() async throws {
        let environment = try await TestEnvironment.make()
        let contract = ContractRecorder(document: document)
        try await withRouter(environment) { client in
            for operation in document.operations.values.sorted(by: { $0.key < $1.key }) {
                let uri = Self.sampleURI(operation.path)
                let method = HTTPRequest.Method(rawValue: operation.method)!
                if operation.needsToken {
                    let response = try await client.send(method, uri)
                    contract.check(operation.key, response, expecting: 401)
                }
                guard operation.requestBody?["application/json"] != nil else { continue }
                // Every body goes with what the operation needs besides its body (a key for orders).
                let key: HTTPFields = [HTTPField.Name("Idempotency-Key")!: UUID().uuidString]
                // The first role the operation lets in (ops, else a kiosk, else a kitchen).
                var token = environment.ops
                var malformed = try await client.send(method, uri, token: token, rawBody: "{\"a\": ", headers: key)
                for other in [environment.kiosk, environment.kitchen] where malformed.status == .forbidden {
                    token = other
                    malformed = try await client.send(method, uri, token: token, rawBody: "{\"a\": ", headers: key)
                }
                contract.check(operation.key, malformed, expecting: 400)
                var form = key
                form[.contentType] = "application/x-www-form-urlencoded"
                let wrongType = try await client.send(method, uri, token: token, rawBody: "a=1", headers: form)
                contract.check(operation.key, wrongType, expecting: 415)
                let huge = try await client.send(
                    method, uri, token: token,
                    rawBody: "\"" + String(repeating: "a", count: 1_100_000) + "\"", headers: key)
                contract.check(operation.key, huge, expecting: 413)
            }
        }
        #expect(contract.report().problems == [])
    }

    /// A concrete URI for a documented path: each `{parameter}` filled with a plausible value.
    static func sampleURI(_ path: String) -> String {
        let samples = [
            "cafeId": "testcafe", "itemId": "latte", "orderId": "ord_unknown", "ticketId": "tkt_unknown",
            "userId": "u-ada", "key": "defaultLocation", "uuid": "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0",
            "major": "900", "minor": "1",
        ]
        return path.split(separator: "/", omittingEmptySubsequences: false).map { part in
            guard part.hasPrefix("{") else { return String(part) }
            return samples[String(part.dropFirst().dropLast())] ?? "x"
        }.joined(separator: "/")
    }
}

// MARK: - Recording answers against the document

/// Checks answers against the document as they come, and remembers which operations answered 2xx or 3xx
/// (a sign-in's success is a redirect).
final class ContractRecorder: Sendable {
    struct Report {
        var problems: [String]
        var succeeded: Set<String>
    }

    let document: OpenAPIDocument
    private let state = Mutex(Report(problems: [], succeeded: []))

    init(document: OpenAPIDocument) {
        self.document = document
    }

    /// Checks one answer of `operation` (`GET /v1/cafes/{cafeId}`); with `expecting`, also its status.
    func check(
        _ operation: String, _ response: TestResponse, expecting expected: Int? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let problems = problems(operation, response, expecting: expected)
        for problem in problems { Issue.record(Comment(rawValue: problem), sourceLocation: sourceLocation) }
        let status = Int(response.status.code)
        state.withLock { report in
            report.problems += problems
            if problems.isEmpty, (200..<400).contains(status) { report.succeeded.insert(operation) }
        }
    }

    func report() -> Report { state.withLock { $0 } }

    private func problems(_ key: String, _ response: TestResponse, expecting expected: Int?) -> [String] {
        guard let operation = document.operations[key] else { return ["\(key) is not in the document"] }
        let status = Int(response.status.code)
        let body = Data(response.body.readableBytesView)
        var problems: [String] = []
        if let expected, status != expected {
            let text = String(decoding: body.prefix(200), as: UTF8.self)
            problems.append("\(key): answered \(status), expected \(expected): \(text)")
        }
        guard let documented = operation.response(for: status) else {
            return problems + ["\(key): status \(status) is not documented"]
        }
        if documented.content.isEmpty {
            if !body.isEmpty { problems.append("\(key) \(status): a body the document does not describe") }
            return problems
        }
        let mediaType = response.headers[.contentType].map { String($0.split(separator: ";")[0]) } ?? ""
        guard let schemaEntry = documented.content[mediaType] else {
            return problems + ["\(key) \(status): media type \(mediaType) is not documented"]
        }
        guard let schema = schemaEntry, mediaType.hasSuffix("json") else { return problems }
        do {
            let value = try JSONValue.parse(body)
            let validator = SchemaValidator(root: document.root, strictObjects: true)
            problems += validator.problems(value, against: schema).map { "\(key) \(status): \($0)" }
        } catch {
            problems.append("\(key) \(status): the body is not JSON: \(error)")
        }
        return problems
    }
}

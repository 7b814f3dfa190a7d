import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import Yams

/// `openapi.yaml` parsed (by a YAML parser, not by lines): its operations with their parameters,
/// request body and responses, `$ref`s resolved. The document is the API's source of truth; the
/// contract tests check the router and the answers the server really gives against it.
struct OpenAPIDocument: Sendable {
    /// One documented parameter.
    struct Parameter: Hashable, Sendable {
        var name: String
        /// `path`, `query` or `header`.
        var location: String
        var required: Bool
        var schema: JSONValue?
    }

    /// One documented response: its media types with their schemas (empty when it has no body).
    struct Response: Hashable, Sendable {
        var content: [String: JSONValue?]
    }

    /// One operation: `GET /v1/cafes/{cafeId}`.
    struct Operation: Hashable, Sendable {
        var method: String
        var path: String
        var parameters: [Parameter]
        /// The request body's media types and schemas, nil without a body.
        var requestBody: [String: JSONValue?]?
        var requestBodyRequired: Bool
        /// Responses by status (`"200"`, `"4XX"`, `"default"`).
        var responses: [String: Response]
        /// Whether the operation needs a token (its own `security`, else the document's).
        var needsToken: Bool

        var key: String { "\(method) \(path)" }

        /// The documented response for `status`: exact, then its range (`4XX`), then `default`.
        func response(for status: Int) -> Response? {
            responses[String(status)] ?? responses["\(status / 100)XX"] ?? responses["default"]
        }
    }

    let root: JSONValue
    let operations: [String: Operation]

    static let methods = ["get", "put", "post", "patch", "delete", "head", "options"]

    /// The repository's `openapi.yaml`.
    static let repository: OpenAPIDocument = {
        do {
            let url = Fixtures.repositoryRoot.appendingPathComponent("openapi.yaml")
            return try OpenAPIDocument(yaml: String(contentsOf: url, encoding: .utf8))
        } catch {
            fatalError("openapi.yaml cannot be read: \(error)")
        }
    }()

    init(yaml: String) throws {
        guard let node = try Yams.compose(yaml: yaml) else { throw DocumentError("the document is empty") }
        root = try Self.json(node, path: "")
        guard case .object(let paths)? = root["paths"] else { throw DocumentError("no paths") }
        let globalSecurity = root["security"]
        var operations: [String: Operation] = [:]
        for (path, item) in paths {
            let pathParameters = try Self.parameters(item["parameters"], in: root)
            for method in Self.methods {
                guard let operation = item[method] else { continue }
                var parameters = pathParameters
                for parameter in try Self.parameters(operation["parameters"], in: root) {
                    parameters.removeAll { $0.name == parameter.name && $0.location == parameter.location }
                    parameters.append(parameter)
                }
                var requestBody: [String: JSONValue?]?
                var requestBodyRequired = false
                if let body = operation["requestBody"] {
                    let resolved = try Self.resolve(body, in: root)
                    requestBody = try Self.content(resolved["content"], in: root)
                    requestBodyRequired = resolved["required"] == .bool(true)
                }
                var responses: [String: Response] = [:]
                guard case .object(let documented)? = operation["responses"] else {
                    throw DocumentError("\(method.uppercased()) \(path) has no responses")
                }
                for (status, response) in documented {
                    let resolved = try Self.resolve(response, in: root)
                    responses[status] = Response(content: try Self.content(resolved["content"], in: root))
                }
                let security = operation["security"] ?? globalSecurity
                let needsToken = security.map { $0 != .array([]) } ?? false
                let entry = Operation(
                    method: method.uppercased(), path: path, parameters: parameters,
                    requestBody: requestBody, requestBodyRequired: requestBodyRequired,
                    responses: responses, needsToken: needsToken)
                operations[entry.key] = entry
            }
        }
        self.operations = operations
    }

    // MARK: - Reading the tree

    /// Follows a `$ref` (local ones only) until the value is not a reference.
    static func resolve(_ value: JSONValue, in root: JSONValue) throws -> JSONValue {
        var current = value
        var seen: Set<String> = []
        while case .string(let reference)? = current["$ref"] {
            guard reference.hasPrefix("#/"), seen.insert(reference).inserted else {
                throw DocumentError("unresolvable $ref \(reference)")
            }
            var target: JSONValue? = root
            for component in reference.dropFirst(2).split(separator: "/") {
                let name = component.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
                target = target?[name]
            }
            guard let found = target else { throw DocumentError("$ref \(reference) points nowhere") }
            current = found
        }
        return current
    }

    private static func parameters(_ value: JSONValue?, in root: JSONValue) throws -> [Parameter] {
        guard case .array(let list)? = value else { return [] }
        return try list.map { entry in
            let parameter = try resolve(entry, in: root)
            guard let name = parameter["name"]?.stringValue, let location = parameter["in"]?.stringValue else {
                throw DocumentError("a parameter without name or in: \(parameter)")
            }
            return Parameter(
                name: name, location: location, required: parameter["required"] == .bool(true),
                schema: parameter["schema"])
        }
    }

    private static func content(_ value: JSONValue?, in root: JSONValue) throws -> [String: JSONValue?] {
        guard case .object(let media)? = value else { return [:] }
        return media.mapValues { $0["schema"] }
    }

    /// A YAML node as JSON: mappings with string keys, scalars resolved by YAML's core schema.
    private static func json(_ node: Node, path: String) throws -> JSONValue {
        switch node {
        case .mapping(let mapping):
            var object: [String: JSONValue] = [:]
            for (key, value) in mapping {
                guard let name = key.string else { throw DocumentError("\(path): a key that is not a string") }
                guard object[name] == nil else { throw DocumentError("\(path): duplicate key \(name)") }
                object[name] = try json(value, path: "\(path)/\(name)")
            }
            return .object(object)
        case .sequence(let sequence):
            return .array(try sequence.enumerated().map { try json($0.element, path: "\(path)/\($0.offset)") })
        case .scalar(let scalar):
            if scalar.style != .plain { return .string(scalar.string) }
            switch scalar.string {
            case "null", "~", "": return .null
            case "true": return .bool(true)
            case "false": return .bool(false)
            default:
                if let int = Int64(scalar.string) { return .int(int) }
                if let double = Double(scalar.string), scalar.string.contains(where: { $0 == "." || $0 == "e" }) {
                    return .double(double)
                }
                return .string(scalar.string)
            }
        case .alias:
            throw DocumentError("\(path): YAML aliases are not used in this document")
        }
    }

    struct DocumentError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

extension JSONValue {
    /// An object's member, for reading the document tree.
    fileprivate subscript(_ name: String) -> JSONValue? { objectValue?[name] }
}

extension Optional where Wrapped == JSONValue {
    /// An object's member of an optional value.
    fileprivate subscript(_ name: String) -> JSONValue? { self?.objectValue?[name] }
}

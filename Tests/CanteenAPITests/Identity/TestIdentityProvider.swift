import AsyncHTTPClient
import CanteenCore
import CanteenJSON
import CanteenTestSupport
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// The test OpenID provider (`Tests/IdentityProvider/provider.py`) as a subprocess on a free
/// loopback port, run by the tests' Python (`make venv`: the `cryptography` package), with its
/// test controls: the next ID token made wrong on purpose, keys rotated, its clock set, tokens
/// minted, counts of what it was asked. Stopped by `stop()` (and when the test process ends:
/// it exits when its stdin closes).
final class TestIdentityProvider: Sendable {
    let issuer: String
    private let process: Process
    private let stdin: Pipe

    /// The client Canteen is registered as.
    static let clientID = "canteen"
    static let clientSecret = "canteen-secret"

    /// The tests' Python: `.build-venv/bin/python` (`make venv`), or `$CANTEEN_TEST_PYTHON`.
    static var python: URL {
        if let path = ProcessInfo.processInfo.environment["CANTEEN_TEST_PYTHON"] { return URL(fileURLWithPath: path) }
        return Fixtures.repositoryRoot.appendingPathComponent(".build-venv/bin/python")
    }

    /// Starts the provider, accepting `redirectURIs`, with users alice (u-alice) and olga (u-olga,
    /// in group `canteen-ops`).
    init(redirectURIs: [String]) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.python.path) else {
            throw RawHTTP.Failure(
                description: "the tests' Python is missing at \(Self.python.path): run `make venv` "
                    + "(it installs requirements-test.txt) or set CANTEEN_TEST_PYTHON")
        }
        let process = Process()
        process.executableURL = Self.python
        process.arguments =
            [
                Fixtures.repositoryRoot.appendingPathComponent("Tests/IdentityProvider/provider.py").path,
                "--client", "\(Self.clientID):\(Self.clientSecret)",
            ]
            + redirectURIs.flatMap { ["--redirect-uri", $0] }
        let stdout = Pipe()
        let stdin = Pipe()
        process.standardOutput = stdout
        process.standardInput = stdin
        try process.run()
        // The first line is `READY <issuer>`; anything else (or nothing) is a failure to start.
        var line = Data()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let byte = stdout.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte == Data("\n".utf8) { break }
            line += byte
        }
        let text = String(decoding: line, as: UTF8.self)
        guard text.hasPrefix("READY ") else {
            process.terminate()
            throw RawHTTP.Failure(description: "the test identity provider did not start: '\(text)'")
        }
        issuer = String(text.dropFirst("READY ".count))
        self.process = process
        self.stdin = stdin
    }

    func stop() {
        try? stdin.fileHandleForWriting.close()
        process.terminate()
        process.waitUntilExit()
    }

    // MARK: - Calls

    /// A call to the provider; `(status, headers, body)`. Redirects are not followed.
    func call(
        _ method: HTTPMethod, _ path: String, form: [(String, String)]? = nil, json: JSONValue? = nil,
        url: String? = nil
    ) async throws -> (status: Int, location: String?, body: Data) {
        var request = HTTPClientRequest(url: url ?? issuer + path)
        request.method = method
        if let form {
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            let encoded = form.map { "\(Self.escape($0.0))=\(Self.escape($0.1))" }.joined(separator: "&")
            request.body = .bytes(ByteBuffer(string: encoded))
        } else if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: json.encoded()))
        }
        let response = try await Self.client.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), response.headers.first(name: "Location"), Data(body.readableBytesView))
    }

    /// A test control (`/test/NAME`) with a JSON body; its JSON answer.
    @discardableResult
    func control(_ name: String, _ body: JSONValue = [:]) async throws -> JSONValue {
        let answer = try await call(.POST, "/test/\(name)", json: body)
        guard answer.status == 200 else {
            throw RawHTTP.Failure(
                description: "/test/\(name): \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
        }
        return try JSONValue.parse(answer.body)
    }

    /// The provider's clock set to `instant` (tokens are issued and checked on the test's clock).
    func setClock(_ instant: Date) async throws {
        try await control("clock", ["now": .double(instant.timeIntervalSince1970)])
    }

    /// How many times each endpoint was asked (`jwks`, `token`, `authorize`, `login`).
    func stats() async throws -> [String: JSONValue] {
        try JSONValue.parse(try await call(.GET, "/test/stats").body).objectValue ?? [:]
    }

    /// How many times the JWKS was fetched.
    func jwksFetches() async throws -> Int64 {
        if case .int(let count)? = try await stats()["jwks"] { return count }
        return -1
    }

    /// A token minted on demand (an access token by default), claims overridden (null removes one).
    func mint(
        claims: [String: JSONValue] = [:], header: [String: JSONValue] = [:], sign: [String: JSONValue] = [:],
        accessToken: Bool = true, user: String = "alice"
    ) async throws -> String {
        let answer = try await control(
            "mint",
            [
                "claims": .object(claims), "header": .object(header), "sign": .object(sign),
                "accessToken": .bool(accessToken), "user": .string(user),
            ])
        return answer["token"]?.stringValue ?? ""
    }

    /// Signs in at the provider's form for an authorization URL Canteen gave: the redirect back
    /// (`redirect_uri?code=…&state=…`).
    func signIn(at authorizationURL: String, user: String = "alice", password: String? = nil) async throws -> String {
        guard let components = URLComponents(string: authorizationURL), let items = components.queryItems else {
            throw RawHTTP.Failure(description: "not an authorization URL: \(authorizationURL)")
        }
        let page = try await call(.GET, "", url: authorizationURL)
        guard page.status == 200 else {
            throw RawHTTP.Failure(
                description: "authorize: \(page.status) \(String(decoding: page.body, as: UTF8.self))")
        }
        var form = items.map { ($0.name, $0.value ?? "") }
        form += [("username", user), ("password", password ?? "\(user)-pw")]
        let answer = try await call(.POST, "/authorize", form: form)
        guard answer.status == 302, let location = answer.location else {
            throw RawHTTP.Failure(
                description: "login: \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
        }
        return location
    }

    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~")))
            ?? ""
    }

    static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.timeout = .init(connect: .seconds(10), read: .seconds(30))
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }()
}

import CanteenCore
import Foundation
import Synchronization

/// The first minute of a new Canteen: on the start that filled an empty database with the
/// sample cafés, tokens for the console (ops) and for one sample café's kitchen display, kiosk
/// and pickup board are made (listed by `canteen tokens list` like any other), and the server
/// prints links that open each screen with its token in the URL fragment, as provisioning does.
public final class FirstMinute: Sendable {
    /// One screen to open: what it is, and its path with the token in the fragment.
    public struct Link: Hashable, Sendable {
        public let title: String
        public let path: String
    }

    private let links = Mutex<[Link]>([])

    public init() {}

    /// Makes the tokens (in the café `cafeID` for the café's screens) and keeps the links.
    public func provision(tokens: any TokenRepository, cafeID: String?) async throws {
        var made: [Link] = []
        let (_, ops) = try await tokens.createToken(TokenSpec(role: .ops, name: "first minute: ops console"))
        made.append(Link(title: "Ops console", path: "/ops#token=\(ops)"))
        if let cafeID {
            let screens: [(String, String, Role, String)] = [
                ("Kitchen display", "kds", .kitchen, "kitchen display"),
                ("Kiosk", "kiosk", .kiosk, "kiosk"),
                ("Pickup board", "board", .kiosk, "pickup board"),
            ]
            for (title, page, role, name) in screens {
                let (_, secret) = try await tokens.createToken(
                    TokenSpec(role: role, cafeID: cafeID, name: "first minute: \(name) (\(cafeID))"))
                made.append(Link(title: "\(title) of \(cafeID)", path: "/\(page)?cafe=\(cafeID)#token=\(secret)"))
            }
        }
        links.withLock { $0 = made }
    }

    /// The links made, once: the text to print when the server listens on `base`
    /// (`http://127.0.0.1:8080`), or nil when there is nothing to print (not a first start).
    public func takeText(base: String) -> String? {
        let made = links.withLock { links in
            defer { links = [] }
            return links
        }
        guard !made.isEmpty else { return nil }
        let width = made.map(\.title.count).max() ?? 0
        let lines = made.map {
            "    \($0.title.padding(toLength: width, withPad: " ", startingAt: 0))  \(base)\($0.path)"
        }
        return """
            First start: the sample cafés are imported and these screens are ready to open (each link holds its own
            token; `canteen tokens list` shows them, `canteen tokens revoke ID` ends one):
            \(lines.joined(separator: "\n"))

            """
    }

    /// The address to print for a server listening on `host` (any address: the loopback one).
    public static func base(host: String, port: Int) -> String {
        let shown = ["0.0.0.0", "::", ""].contains(host) ? "127.0.0.1" : host
        return shown.contains(":") ? "http://[\(shown)]:\(port)" : "http://\(shown):\(port)"
    }
}

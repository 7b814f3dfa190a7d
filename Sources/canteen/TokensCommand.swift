import ArgumentParser
import CanteenApp
import CanteenCore
import Foundation

/// `canteen tokens create|list|revoke`.
struct TokensCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens", abstract: "Create, list and revoke access tokens.",
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a token and print it alone on stdout.")
        @OptionGroup var data: DataOptions
        @Option(help: "kiosk, kitchen, ops, user or metrics (reads GET /metrics only).") var role: Role
        @Option(help: "Bind a kiosk or kitchen token to one café.") var cafe: String?
        @Option(help: "The user a user token acts for (its preferences, café and orders only).") var user: String?
        @Option(help: "A name to recognise the token by.") var name: String?

        func validate() throws {
            if (role == .ops || role == .user || role == .metrics) && cafe != nil {
                throw ValidationError("--cafe binds kiosk and kitchen tokens only")
            }
            if role == .user && user == nil { throw ValidationError("a user token needs --user ID") }
            if role != .user && user != nil { throw ValidationError("--user is for user tokens only") }
        }

        func run() async throws {
            try await data.withStores { stores in
                let spec = TokenSpec(role: role, cafeID: cafe, userID: user, name: name)
                let (_, secret) = try await stores.tokens.createToken(spec)
                print(secret)
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List tokens (never their secrets).")
        @OptionGroup var data: DataOptions

        func run() async throws {
            try await data.withStores { stores in
                let formatter = Date.ISO8601FormatStyle()
                for token in try await stores.tokens.tokens() {
                    let state = token.revokedAt.map { "revoked \(formatter.format($0))" } ?? "active"
                    let scope = token.userID.map { "user:\($0)" } ?? token.cafeID ?? "*"
                    print(
                        [
                            token.id, token.role.rawValue, scope, token.name ?? "-",
                            formatter.format(token.createdAt), state,
                        ].joined(separator: "\t"))
                }
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke a token by its id (tok_…).")
        @OptionGroup var data: DataOptions
        @Argument(help: "The token's id, as `tokens list` shows it.") var id: String

        func run() async throws {
            try await data.withStores { stores in
                try await stores.tokens.revokeToken(id: id)
                print("revoked \(id)")
            }
        }
    }
}

extension Role: ExpressibleByArgument {}

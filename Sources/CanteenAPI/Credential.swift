/// How a request proved who it is.
public enum Credential: String, Sendable {
    /// `Authorization: Bearer` with a token made by ops (`canteen tokens create`, `POST /v1/tokens`).
    case token
    /// The session cookie of a person signed in with the identity provider.
    case session
    /// `Authorization: Bearer` with the identity provider's JWT access token (a native app).
    case providerToken
}

/// Whether the database takes work right now, for `GET /readyz`.
public protocol DatabaseHealth: Sendable {
    /// The engine's name in answers (`sqlite`, `postgresql`).
    var engine: String { get }
    /// Nil when the database answers and can be written; else what is wrong, in words an
    /// operator can act on. Never throws: a failure is the answer.
    func problem() async -> String?
}

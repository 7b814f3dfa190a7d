import CanteenCore
import CanteenIdentity

/// A verified token, shared by the copies of a request's context.
final class VerifiedToken: Sendable {
    let token: AccessToken
    let credential: Credential
    let person: SignedInPerson?

    init(_ token: AccessToken, credential: Credential = .token, person: SignedInPerson? = nil) {
        self.token = token
        self.credential = credential
        self.person = person
    }
}

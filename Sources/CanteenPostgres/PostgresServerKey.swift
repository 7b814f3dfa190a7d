import CanteenCore
import Crypto
import Foundation

/// The key every server hashes cards and signs coupons with: `CANTEEN_CARD_KEY` when set
/// (the same on every server), else the one stored in the database (`serverKey`, made by the
/// first server that migrated it, read by every server at start). Several servers must share
/// it: a card registered or a coupon minted on one is then recognised on the others.
/// `canteen db copy` moves a SQLite data dir's `card.key` into the database.
public final class PostgresServerKey: Sendable {
    let database: PostgresDatabase
    private let fixed: [UInt8]?

    public init(database: PostgresDatabase, fixed: SymmetricKey?) {
        self.database = database
        self.fixed = fixed?.withUnsafeBytes { Array($0) }
    }

    /// The key's bytes; `database_unavailable` until the database has been migrated.
    func bytes() throws -> [UInt8] {
        if let fixed { return fixed }
        return try database.storedServerKey()
    }

    /// The coupon signer over the key.
    func signer() throws -> CouponSigner { CouponSigner(key: SymmetricKey(data: try bytes())) }
}

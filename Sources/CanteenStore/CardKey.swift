import Crypto
import Foundation

/// The server's key for card hashes: `CANTEEN_CARD_KEY` (64+ hex digits) when set, else `card.key` in the data
/// folder (32 random bytes, created owner-only on first use), else a random key for an in-memory database.
/// Losing the key unregisters every card: back it up with the database.
public enum CardKey {
    public static func load(dataDirectory: URL?, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws -> SymmetricKey
    {
        if let hex = environment["CANTEEN_CARD_KEY"] {
            let digits = Array(hex.utf8)
            guard digits.count >= 64, digits.count % 2 == 0 else {
                throw invalid("CANTEEN_CARD_KEY is at least 64 hex digits")
            }
            var bytes: [UInt8] = []
            for index in stride(from: 0, to: digits.count, by: 2) {
                guard let byte = UInt8(String(decoding: digits[index..<(index + 2)], as: UTF8.self), radix: 16) else {
                    throw invalid("CANTEEN_CARD_KEY is not hex")
                }
                bytes.append(byte)
            }
            return SymmetricKey(data: bytes)
        }
        guard let dataDirectory else { return SymmetricKey(size: .bits256) }
        let url = dataDirectory.appendingPathComponent("card.key")
        if let data = FileManager.default.contents(atPath: url.path) {
            guard data.count >= 32 else { throw invalid("\(url.path) holds \(data.count) bytes, a card key has 32") }
            return SymmetricKey(data: data)
        }
        let key = SymmetricKey(size: .bits256)
        let data = key.withUnsafeBytes { Data($0) }
        guard FileManager.default.createFile(atPath: url.path, contents: data, attributes: [.posixPermissions: 0o600])
        else {
            throw invalid("cannot create \(url.path)")
        }
        return key
    }

    /// `CANTEEN_CARD_KEY` when it is set, else nil (PostgreSQL then uses the key stored in the database).
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> SymmetricKey?
    {
        guard environment["CANTEEN_CARD_KEY"] != nil else { return nil }
        return try load(dataDirectory: nil, environment: environment)
    }

    static func invalid(_ message: String) -> CardKeyError { CardKeyError(message: message) }
}

/// Why the card key could not be loaded.
public struct CardKeyError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// Fixed limits of the HTTP API.
public enum APILimits {
    /// Request bodies: larger ones are 413 `body_too_large`.
    public static let maxBodyBytes = 1 << 20
    /// One header line, and all header lines together: larger ones are 431 `headers_too_large`.
    public static let maxHeaderFieldBytes = 16 << 10
    public static let maxHeaderBytes = 32 << 10
    /// Header lines in one request.
    public static let maxHeaderFields = 100
    /// The longest bearer token considered (longer ones are unknown: 401).
    public static let maxTokenBytes = 256
}

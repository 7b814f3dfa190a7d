/// How the server names itself.
public enum CanteenServer {
    /// The `Server` field of every answer.
    public static let name = "Canteen"
}

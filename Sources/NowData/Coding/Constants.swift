/// Well-known values of the NowData API.
public enum Constants {
    /// The dot path under which the Table API nests every response: `result`.
    public static let resultPath = "result"
}

/// The one rule for a JACK client name, whoever gives it (`rack run --name`, or the session
/// manager's client id in `/nsm/client/open`).
public enum ClientName {
    /// Longest name in bytes: JACK's `jack_client_name_size()` is 64, its terminating NUL
    /// included (a longer name made `jack_client_open` fail, read as "no JACK server").
    public static let maximumBytes = 63

    /// Why `name` cannot be a client name (one line), nil when it can: it is 1…63 bytes, with
    /// no `:` (JACK's separator of client and port in a port's full name) and no control character.
    public static func problem(_ name: String) -> String? {
        if name.isEmpty || name.utf8.count > maximumBytes { return "must be 1…\(maximumBytes) bytes" }
        if name.contains(":") { return "must not contain ':'" }
        if name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) { return "must not contain control characters" }
        return nil
    }
}

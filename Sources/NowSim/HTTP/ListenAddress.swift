import Foundation

/// A parsed listen address as the socket API wants it. Internal: C types stay behind the wall.
struct ListenAddress {
    /// The IPv4 or IPv6 socket address, port included.
    var storage = sockaddr_storage()
    /// Whether `storage` holds a `sockaddr_in6`.
    var isIPv6 = false

    /// Parses a numeric IPv4/IPv6 address or `localhost`; host names are refused rather than resolved,
    /// so that a typo cannot make the simulator listen somewhere unexpected.
    init(host: String, port: Int) throws {
        let name = host == "localhost" ? "127.0.0.1" : host
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, name, &v4) == 1 {
            withUnsafeMutableBytes(of: &storage) { raw in
                let address = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in.self)
                address.pointee.sin_family = sa_family_t(AF_INET)
                address.pointee.sin_port = in_port_t(UInt16(port).bigEndian)
                address.pointee.sin_addr = v4
            }
        } else if inet_pton(AF_INET6, name, &v6) == 1 {
            isIPv6 = true
            withUnsafeMutableBytes(of: &storage) { raw in
                let address = raw.baseAddress!.assumingMemoryBound(to: sockaddr_in6.self)
                address.pointee.sin6_family = sa_family_t(AF_INET6)
                address.pointee.sin6_port = in_port_t(UInt16(port).bigEndian)
                address.pointee.sin6_addr = v6
            }
        } else {
            throw HTTPServerError(
                .invalidConfiguration,
                "cannot listen on host '\(host)': give an IPv4 address, ::1, :: or localhost (names are not resolved)")
        }
    }

    /// Whether `host` is a loopback address (127.0.0.0/8, `::1`, `::ffff:127.x.x.x`, `localhost`);
    /// `nil` when it is not an address ``init(host:port:)`` takes (that error comes from there).
    static func isLoopback(host: String) -> Bool? {
        let name = host == "localhost" ? "127.0.0.1" : host
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, name, &v4) == 1 {
            return UInt32(bigEndian: v4.s_addr) >> 24 == 127
        }
        guard inet_pton(AF_INET6, name, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
        // An IPv4-mapped address: ::ffff:127.0.0.1.
        return bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127
    }

    /// The numeric text of a peer address (`127.0.0.1`, `::1`), or an empty string for other families.
    static func text(of address: UnsafePointer<sockaddr>?) -> String {
        guard let address else { return "" }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        func decoded() -> String {
            String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { v4 in
                var raw = v4.pointee.sin_addr
                guard inet_ntop(AF_INET, &raw, &buffer, socklen_t(buffer.count)) != nil else { return "" }
                return decoded()
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { v6 in
                var raw = v6.pointee.sin6_addr
                guard inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count)) != nil else { return "" }
                return decoded()
            }
        default:
            return ""
        }
    }
}

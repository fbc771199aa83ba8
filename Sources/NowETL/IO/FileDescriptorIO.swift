#if canImport(Glibc)
    import Glibc
#endif

/// The write loop every file of nowetl's own goes through: short writes continued, `EINTR` retried.
enum FileDescriptorIO {
    /// Writes all of `bytes` to `descriptor`; returns `nil`, or the `errno` of the failed write.
    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) -> Int32? {
        guard let base = bytes.baseAddress else { return nil }
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += written
        }
        return nil
    }
}

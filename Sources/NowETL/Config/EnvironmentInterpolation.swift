/// `${VAR}` substitution in scalar values, from an environment dictionary.
///
/// * `${NAME}` is the variable's value; it must be set and non-empty (a pipeline that silently
///   exports with an empty password or instance is worse than one that stops).
/// * `${NAME:-default}` is the value, or `default` when the variable is unset or empty; the
///   default is taken literally up to the first `}`.
/// * `$$` is one `$`. A `$` followed by anything else stays as it is (`pa$word`).
/// * `NAME` is `[A-Za-z_][A-Za-z0-9_]*`; anything else inside `${…}` is an error.
///
/// Offsets are UTF-8 byte offsets into the unsubstituted text, so errors can point at the `$`.
struct EnvironmentInterpolation {
    /// Why a value could not be substituted; names the variable, never a value.
    enum Failure: Error {
        case unset(name: String, offset: Int)
        case empty(name: String, offset: Int)
        case malformed(reference: String, offset: Int)
        case unterminated(offset: Int)

        var offset: Int {
            switch self {
            case .unset(_, let offset), .empty(_, let offset), .malformed(_, let offset), .unterminated(let offset):
                offset
            }
        }
    }

    private enum Piece {
        case literal(Range<Int>)
        case dollar(at: Int)
        case variable(name: String, fallback: String?, range: Range<Int>)
    }

    let environment: [String: String]

    /// Whether `text` contains anything to substitute.
    static func needsExpansion(_ text: String) -> Bool {
        text.utf8.contains(UInt8(ascii: "$"))
    }

    /// `text` with every reference substituted.
    func expand(_ text: String) throws(Failure) -> String {
        guard Self.needsExpansion(text) else { return text }
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        for piece in try Self.pieces(of: bytes) {
            output.append(contentsOf: try value(of: piece, in: bytes))
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The offset in `text` that produced the byte at `expandedOffset` of its expansion: the same
    /// character for literal text, the `$` of a `${…}` or `$$` for substituted text.
    func sourceOffset(ofExpandedOffset expandedOffset: Int, in text: String) -> Int {
        guard Self.needsExpansion(text) else { return expandedOffset }
        let bytes = Array(text.utf8)
        guard let pieces = try? Self.pieces(of: bytes) else { return expandedOffset }
        var produced = 0
        for piece in pieces {
            let length = (try? value(of: piece, in: bytes).count) ?? 0
            if expandedOffset < produced + length {
                switch piece {
                case .literal(let range): return range.lowerBound + (expandedOffset - produced)
                case .dollar(let at): return at
                case .variable(_, _, let range): return range.lowerBound
                }
            }
            produced += length
        }
        return bytes.count + (expandedOffset - produced)
    }

    private func value(of piece: Piece, in bytes: [UInt8]) throws(Failure) -> [UInt8] {
        switch piece {
        case .literal(let range):
            return Array(bytes[range])
        case .dollar:
            return [UInt8(ascii: "$")]
        case .variable(let name, let fallback, let range):
            if let value = environment[name], !value.isEmpty { return Array(value.utf8) }
            if let fallback { return Array(fallback.utf8) }
            if environment[name] == nil { throw .unset(name: name, offset: range.lowerBound) }
            throw .empty(name: name, offset: range.lowerBound)
        }
    }

    private static func pieces(of bytes: [UInt8]) throws(Failure) -> [Piece] {
        let dollar = UInt8(ascii: "$")
        var pieces: [Piece] = []
        var literalStart = 0
        var index = 0
        func flush(upTo end: Int) {
            if literalStart < end { pieces.append(.literal(literalStart..<end)) }
        }
        while index < bytes.count {
            guard bytes[index] == dollar, index + 1 < bytes.count else {
                index += 1
                continue
            }
            if bytes[index + 1] == dollar {
                flush(upTo: index)
                pieces.append(.dollar(at: index))
                index += 2
                literalStart = index
            } else if bytes[index + 1] == UInt8(ascii: "{") {
                guard let close = bytes[(index + 2)...].firstIndex(of: UInt8(ascii: "}")) else {
                    throw .unterminated(offset: index)
                }
                let inner = Array(bytes[(index + 2)..<close])
                let reference = String(decoding: bytes[index...close], as: UTF8.self)
                let nameLength = inner.prefix { isNameByte($0) }.count
                guard nameLength > 0, !isDigit(inner[0]) else { throw .malformed(reference: reference, offset: index) }
                let name = String(decoding: inner[..<nameLength], as: UTF8.self)
                let rest = inner[nameLength...]
                var fallback: String?
                if !rest.isEmpty {
                    guard rest.starts(with: [UInt8(ascii: ":"), UInt8(ascii: "-")]) else {
                        throw .malformed(reference: reference, offset: index)
                    }
                    fallback = String(decoding: rest.dropFirst(2), as: UTF8.self)
                }
                flush(upTo: index)
                pieces.append(.variable(name: name, fallback: fallback, range: index..<(close + 1)))
                index = close + 1
                literalStart = index
            } else {
                index += 1
            }
        }
        flush(upTo: bytes.count)
        return pieces
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        isDigit(byte) || byte == UInt8(ascii: "_")
            || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
    }
}

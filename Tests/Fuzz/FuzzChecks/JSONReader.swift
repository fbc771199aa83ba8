/// A strict RFC 8259 reader for what ``JSONWriterCheck`` wrote, keeping numbers as their text (so a
/// decimal written as a number compares exactly) and members in order.
struct JSONReader {
    /// A JSON value.
    indirect enum Value: Equatable {
        case null
        case bool(Bool)
        case number(String)
        case string(String)
        case array([Value])
        case object([Member])
    }

    /// An object member.
    struct Member: Equatable {
        var key: String
        var value: Value
    }

    private let bytes: [UInt8]
    /// The byte read next.
    private(set) var position = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Whether everything was read.
    var isAtEnd: Bool { position == bytes.count }

    /// Reads `byte` when it comes next.
    mutating func skip(_ byte: UInt8) -> Bool {
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    /// Whether `text` is a JSON number (RFC 8259 §6): `-`? (`0` | [1-9][0-9]*) (`.` [0-9]+)?
    /// ([eE] [+-]? [0-9]+)?.
    static func isNumber(_ text: String) -> Bool {
        var reader = JSONReader(Array(text.utf8))
        return !text.isEmpty && reader.numberLength() == text.utf8.count && reader.isAtEnd
    }

    /// The value at the position, blanks allowed around it (only inside arrays and objects the writer
    /// puts none; the grammar allows them).
    mutating func value() throws(FuzzFailure) -> Value {
        skipBlanks()
        defer { skipBlanks() }
        guard position < bytes.count else { throw failure("a value is missing") }
        switch bytes[position] {
        case 0x7B: return try object()
        case 0x5B: return try array()
        case 0x22: return .string(try string())
        case 0x6E:
            try literal("null")
            return .null
        case 0x74:
            try literal("true")
            return .bool(true)
        case 0x66:
            try literal("false")
            return .bool(false)
        default:
            let start = position
            guard numberLength() > 0 else { throw failure("not a value") }
            return .number(String(decoding: bytes[start..<position], as: UTF8.self))
        }
    }

    private mutating func skipBlanks() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    private func failure(_ message: String) -> FuzzFailure {
        FuzzFailure("JSON: \(message) at byte \(position)")
    }

    private mutating func literal(_ word: String) throws(FuzzFailure) {
        let expected = Array(word.utf8)
        guard position + expected.count <= bytes.count,
            bytes[position..<position + expected.count].elementsEqual(expected)
        else { throw failure("not \(word)") }
        position += expected.count
    }

    /// Reads a number and returns its length (0 when none starts here).
    private mutating func numberLength() -> Int {
        let start = position
        func digits() -> Int {
            let from = position
            while position < bytes.count, (0x30...0x39).contains(bytes[position]) { position += 1 }
            return position - from
        }
        _ = skip(0x2D)
        if skip(0x30) {
        } else if digits() == 0 {
            position = start
            return 0
        }
        if skip(0x2E), digits() == 0 {
            position = start
            return 0
        }
        if skip(0x65) || skip(0x45) {
            if !skip(0x2B) { _ = skip(0x2D) }
            if digits() == 0 {
                position = start
                return 0
            }
        }
        return position - start
    }

    private mutating func array() throws(FuzzFailure) -> Value {
        position += 1
        skipBlanks()
        var elements: [Value] = []
        if skip(0x5D) { return .array(elements) }
        while true {
            elements.append(try value())
            if skip(0x5D) { return .array(elements) }
            guard skip(0x2C) else { throw failure("expected , or ]") }
        }
    }

    private mutating func object() throws(FuzzFailure) -> Value {
        position += 1
        skipBlanks()
        var members: [Member] = []
        if skip(0x7D) { return .object(members) }
        while true {
            skipBlanks()
            guard position < bytes.count, bytes[position] == 0x22 else { throw failure("expected a key") }
            let key = try string()
            skipBlanks()
            guard skip(0x3A) else { throw failure("expected :") }
            members.append(Member(key: key, value: try value()))
            if skip(0x7D) { return .object(members) }
            guard skip(0x2C) else { throw failure("expected , or }") }
        }
    }

    private mutating func string() throws(FuzzFailure) -> String {
        position += 1
        var scalars = String.UnicodeScalarView()
        var run: [UInt8] = []
        func flush() throws(FuzzFailure) {
            guard !run.isEmpty else { return }
            guard let text = String(validating: run, as: UTF8.self) else { throw failure("invalid UTF-8") }
            scalars.append(contentsOf: text.unicodeScalars)
            run.removeAll()
        }
        while true {
            guard position < bytes.count else { throw failure("a string is not closed") }
            let byte = bytes[position]
            position += 1
            switch byte {
            case 0x22:
                try flush()
                return String(scalars)
            case 0x00..<0x20:
                throw failure("a raw control character in a string")
            case 0x5C:
                try flush()
                guard position < bytes.count else { throw failure("a string ends in \\") }
                let escape = bytes[position]
                position += 1
                switch escape {
                case 0x22: scalars.append("\"")
                case 0x5C: scalars.append("\\")
                case 0x2F: scalars.append("/")
                case 0x62: scalars.append("\u{8}")
                case 0x66: scalars.append("\u{C}")
                case 0x6E: scalars.append("\n")
                case 0x72: scalars.append("\r")
                case 0x74: scalars.append("\t")
                case 0x75:
                    var code = try hex4()
                    if (0xD800..<0xDC00).contains(code) {
                        guard skip(0x5C), skip(0x75) else { throw failure("a high surrogate alone") }
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw failure("a high surrogate alone") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw failure("a lone surrogate") }
                    scalars.append(scalar)
                default:
                    throw failure("an unknown escape")
                }
            default:
                run.append(byte)
            }
        }
    }

    private mutating func hex4() throws(FuzzFailure) -> UInt32 {
        guard position + 4 <= bytes.count else { throw failure("a short \\u escape") }
        var code: UInt32 = 0
        for byte in bytes[position..<position + 4] {
            guard let digit = Int(String(UnicodeScalar(byte)), radix: 16) else { throw failure("a bad \\u escape") }
            code = code << 4 | UInt32(digit)
        }
        position += 4
        return code
    }
}

/// The byte-level parser behind ``EncodedQuery/init(parsing:)``.
///
/// It walks the UTF-8 bytes of the query once, splitting on `^`, and only creates `String`s for the
/// pieces that end up in the model. Offsets in errors are byte offsets into the whole text.
struct EncodedQueryParser {
    let bytes: UnsafeBufferPointer<UInt8>

    // MARK: Query level

    func parseQuery() throws(EncodedQueryError) -> EncodedQuery {
        var groups: [EncodedQuery.Group] = []
        var terms: [EncodedQuery.Term] = []
        var orderBy: [EncodedQuery.Sort] = []
        var hasEndMarker = false
        var start = 0
        let count = bytes.count
        while start <= count {
            var end = start
            while end < count && bytes[end] != EncodedQueryByte.caret { end += 1 }
            if end > start {
                try parseSegment(
                    start, end, groups: &groups, terms: &terms, orderBy: &orderBy, hasEndMarker: &hasEndMarker)
            }
            start = end + 1
        }
        if !terms.isEmpty { groups.append(EncodedQuery.Group(terms: terms)) }
        return EncodedQuery(groups: groups, orderBy: orderBy, hasEndMarker: hasEndMarker)
    }

    private func parseSegment(
        _ start: Int, _ end: Int,
        groups: inout [EncodedQuery.Group], terms: inout [EncodedQuery.Term],
        orderBy: inout [EncodedQuery.Sort], hasEndMarker: inout Bool
    ) throws(EncodedQueryError) {
        if hasPrefix(Token.orderByDesc, at: start, end: end) {
            orderBy.append(try parseSort(start + Token.orderByDesc.count, end, descending: true))
            return
        }
        if hasPrefix(Token.orderBy, at: start, end: end) {
            orderBy.append(try parseSort(start + Token.orderBy.count, end, descending: false))
            return
        }
        if end - start == Token.endMarker.count && hasPrefix(Token.endMarker, at: start, end: end) {
            if hasEndMarker { throw EncodedQueryError(message: "duplicate ^EQ", offset: start) }
            hasEndMarker = true
            return
        }
        for construct in Token.unsupportedSegments where hasPrefix(construct, at: start, end: end) {
            throw EncodedQueryError(
                message: "\(String(decoding: construct, as: UTF8.self)) subqueries are not supported", offset: start)
        }
        if hasEndMarker {
            throw EncodedQueryError(
                message: "condition \(quoted(start, end)) after ^EQ; only ORDERBY clauses may follow ^EQ",
                offset: start)
        }
        if hasPrefix(Token.or, at: start, end: end) {
            guard !terms.isEmpty else {
                throw EncodedQueryError(message: "^OR without a preceding condition", offset: start)
            }
            let condition = try parseCondition(start + Token.or.count, end)
            terms[terms.count - 1].conditions.append(condition)
            return
        }
        if hasPrefix(Token.newQuery, at: start, end: end) {
            guard !terms.isEmpty else {
                throw EncodedQueryError(message: "^NQ without a preceding condition", offset: start)
            }
            let condition = try parseCondition(start + Token.newQuery.count, end)
            groups.append(EncodedQuery.Group(terms: terms))
            terms = [EncodedQuery.Term(conditions: [condition])]
            return
        }
        terms.append(EncodedQuery.Term(conditions: [try parseCondition(start, end)]))
    }

    private func parseSort(_ start: Int, _ end: Int, descending: Bool) throws(EncodedQueryError) -> EncodedQuery.Sort {
        let keyword = descending ? "ORDERBYDESC" : "ORDERBY"
        guard start < end else {
            throw EncodedQueryError(message: "\(keyword) without a field name", offset: start)
        }
        guard isFieldName(start, end) else {
            throw EncodedQueryError(message: "invalid field name \(quoted(start, end)) after \(keyword)", offset: start)
        }
        return EncodedQuery.Sort(field: string(start, end), descending: descending)
    }

    // MARK: Conditions

    private func parseCondition(_ start: Int, _ end: Int) throws(EncodedQueryError) -> EncodedQuery.Condition {
        guard start < end else {
            throw EncodedQueryError(message: "expected a condition <field><operator><value>", offset: start)
        }
        guard let split = findOperator(start, end) else {
            var runEnd = start
            while runEnd < end && EncodedQueryByte.isFieldByte(bytes[runEnd]) { runEnd += 1 }
            if runEnd == start {
                throw EncodedQueryError(message: "missing field name in \(quoted(start, end))", offset: start)
            }
            throw EncodedQueryError(
                message: "unknown operator in \(quoted(start, end))", offset: runEnd < end ? runEnd : start)
        }
        guard isFieldName(start, split.at) else {
            throw EncodedQueryError(message: "invalid field name \(quoted(start, split.at))", offset: start)
        }
        let op: EncodedQuery.Operator
        switch split.token {
        case .supported(let supported): op = supported
        case .unsupported(let name):
            throw EncodedQueryError(message: "operator \(name) is not supported", offset: split.at)
        }
        let value = try parseValue(op, split.at + split.length, end)
        let condition = EncodedQuery.Condition(field: string(start, split.at), op: op, value: value)
        // Only a field ending in a capital or `_` can run into an operator's canonical token: tokens are
        // made of capitals, `_` and symbols, so a token starting inside the field spans its last bytes.
        if split.at > start, EncodedQueryByte.isUpper(bytes[split.at - 1]) || bytes[split.at - 1] == UInt8(ascii: "_"),
            !Self.printsWithTheSameSplit(condition)
        {
            throw EncodedQueryError(
                message: "the field name \(quoted(start, split.at)) runs into the operator: printed canonically, "
                    + "\(condition.description.debugDescription) would read as another condition "
                    + "(field names are lower case)",
                offset: start)
        }
        return condition
    }

    /// Whether `condition`'s canonical text splits into the same field and operator: an alias printed
    /// as its canonical token (`!*` as `NOT LIKE`) can form another token with the field's last capitals
    /// (`xO!*y` prints as `xONOT LIKEy`, which reads as `x` `ON` …), and such a query would print as
    /// text that parses to another query.
    private static func printsWithTheSameSplit(_ condition: EncodedQuery.Condition) -> Bool {
        var printed = condition.description
        return printed.withUTF8 { bytes in
            guard let match = EncodedQueryParser(bytes: bytes).findOperator(0, bytes.count),
                case .supported(let op) = match.token
            else { return false }
            return match.at == condition.field.utf8.count && op == condition.op
        }
    }

    private struct OperatorMatch {
        var at: Int
        var length: Int
        var token: OperatorToken
    }

    /// Finds where the field ends: the first position holding a word operator inside the run of
    /// field characters, else a symbolic operator right after that run.
    private func findOperator(_ start: Int, _ end: Int) -> OperatorMatch? {
        for pseudo in Token.pseudoFields where hasPrefix(pseudo, at: start, end: end) {
            if let match = matchOperator(at: start + pseudo.count, end) { return match }
        }
        var position = start
        while position < end && EncodedQueryByte.isFieldByte(bytes[position]) {
            if position > start && EncodedQueryByte.isUpper(bytes[position]),
                let match = matchWordOperator(at: position, end)
            {
                return match
            }
            position += 1
        }
        guard position > start else { return nil }
        return matchSymbolicOperator(at: position, end)
    }

    private func matchOperator(at position: Int, _ end: Int) -> OperatorMatch? {
        matchWordOperator(at: position, end) ?? matchSymbolicOperator(at: position, end)
    }

    private func matchWordOperator(at position: Int, _ end: Int) -> OperatorMatch? {
        for (token, meaning) in Token.wordOperators where hasPrefix(token, at: position, end: end) {
            return OperatorMatch(at: position, length: token.count, token: meaning)
        }
        return nil
    }

    private func matchSymbolicOperator(at position: Int, _ end: Int) -> OperatorMatch? {
        for (token, meaning) in Token.symbolicOperators where hasPrefix(token, at: position, end: end) {
            return OperatorMatch(at: position, length: token.count, token: meaning)
        }
        return nil
    }

    // MARK: Values

    private func parseValue(_ op: EncodedQuery.Operator, _ start: Int, _ end: Int) throws(EncodedQueryError)
        -> EncodedQuery.Value
    {
        switch op {
        case .equals, .notEquals, .lessThan, .lessThanOrEquals, .greaterThan, .greaterThanOrEquals:
            if hasPrefix(Token.javascript, at: start, end: end) {
                return .script(try parseDateHelper(start, end))
            }
            return .literal(string(start, end))
        case .like, .notLike, .startsWith, .endsWith:
            try rejectScript(op, start, end)
            return .literal(string(start, end))
        case .instanceOf:
            guard start < end else {
                throw EncodedQueryError(message: "INSTANCEOF needs a table name", offset: start)
            }
            return .literal(string(start, end))
        case .isIn, .notIn:
            var items: [String] = []
            var itemStart = start
            for position in start...end where position == end || bytes[position] == EncodedQueryByte.comma {
                try rejectScript(op, itemStart, position)
                items.append(string(itemStart, position))
                itemStart = position + 1
            }
            return .list(items)
        case .isEmpty, .isNotEmpty, .anything, .emptyString:
            guard start == end else {
                throw EncodedQueryError(
                    message: "\(op.rawValue) takes no value but is followed by \(quoted(start, end))", offset: start)
            }
            return .none
        case .between:
            let parts = split(start, end, on: EncodedQueryByte.at)
            guard parts.count == 2 else {
                throw EncodedQueryError(
                    message: "BETWEEN needs two bounds separated by @ (low@high), got \(quoted(start, end))",
                    offset: start)
            }
            return .range(
                try parseOperand(parts[0], what: "BETWEEN bound"), try parseOperand(parts[1], what: "BETWEEN bound"))
        case .sameAs, .notSameAs, .greaterThanField, .lessThanField, .greaterThanOrEqualsField,
            .lessThanOrEqualsField:
            guard start < end, isFieldName(start, end) else {
                throw EncodedQueryError(
                    message: "\(op.rawValue) needs another field's name, got \(quoted(start, end))", offset: start)
            }
            return .field(string(start, end))
        case .on, .notOn:
            let parts = split(start, end, on: EncodedQueryByte.at)
            guard parts.count == 3 else {
                throw EncodedQueryError(
                    message: "\(op.rawValue) needs label@start@end, got \(quoted(start, end))", offset: start)
            }
            return .dateRange(
                label: string(parts[0].lowerBound, parts[0].upperBound),
                start: try parseOperand(parts[1], what: "\(op.rawValue) start"),
                end: try parseOperand(parts[2], what: "\(op.rawValue) end"))
        case .relativeGreaterThan, .relativeLessThan:
            return try parseRelative(op, start, end)
        }
    }

    private func rejectScript(_ op: EncodedQuery.Operator, _ start: Int, _ end: Int) throws(EncodedQueryError) {
        if hasPrefix(Token.javascript, at: start, end: end) {
            throw EncodedQueryError(
                message: "javascript: values are not supported with \(op.rawValue); "
                    + "only gs date helpers with =, !=, <, <=, >, >=, BETWEEN and ON", offset: start)
        }
    }

    private func parseOperand(_ range: Range<Int>, what: String) throws(EncodedQueryError) -> EncodedQuery.Operand {
        guard !range.isEmpty else {
            throw EncodedQueryError(message: "empty \(what)", offset: range.lowerBound)
        }
        if hasPrefix(Token.javascript, at: range.lowerBound, end: range.upperBound) {
            return .script(try parseDateHelper(range.lowerBound, range.upperBound))
        }
        return .literal(string(range.lowerBound, range.upperBound))
    }

    private func parseRelative(_ op: EncodedQuery.Operator, _ start: Int, _ end: Int) throws(EncodedQueryError)
        -> EncodedQuery.Value
    {
        let usage = "\(op.rawValue) needs @<unit>@ago|ahead@<count>"
        guard start < end && bytes[start] == EncodedQueryByte.at else {
            throw EncodedQueryError(message: "\(usage), got \(quoted(start, end))", offset: start)
        }
        let parts = split(start + 1, end, on: EncodedQueryByte.at)
        guard parts.count == 3 else {
            throw EncodedQueryError(message: "\(usage), got \(quoted(start, end))", offset: start)
        }
        let unitText = string(parts[0].lowerBound, parts[0].upperBound)
        guard let unit = EncodedQuery.RelativeUnit(rawValue: unitText) else {
            let known = EncodedQuery.RelativeUnit.allCases.map(\.rawValue).joined(separator: ", ")
            throw EncodedQueryError(
                message: "unknown \(op.rawValue) unit \"\(unitText)\" (expected one of \(known))",
                offset: parts[0].lowerBound)
        }
        let directionText = string(parts[1].lowerBound, parts[1].upperBound)
        guard let direction = EncodedQuery.RelativeDirection(rawValue: directionText) else {
            throw EncodedQueryError(
                message: "unknown \(op.rawValue) direction \"\(directionText)\" (expected ago or ahead)",
                offset: parts[1].lowerBound)
        }
        guard let count = parseInteger(parts[2], allowSign: false) else {
            throw EncodedQueryError(
                message: "invalid \(op.rawValue) count \(quoted(parts[2].lowerBound, parts[2].upperBound)) "
                    + "(expected a whole number 0...\(Limits.maximumCount))",
                offset: parts[2].lowerBound)
        }
        return .relative(unit: unit, direction: direction, count: count)
    }

    // MARK: Date helpers

    /// Parses `javascript:gs.<helper>(<args>)` (spaces allowed around the arguments, an optional
    /// trailing `;`).
    private func parseDateHelper(_ start: Int, _ end: Int) throws(EncodedQueryError) -> EncodedQuery.DateHelper {
        var unsupported: EncodedQueryError {
            EncodedQueryError(
                message: "unsupported javascript: expression \(quoted(start, end)); only gs date helpers such as "
                    + "gs.daysAgo(n), gs.beginningOfToday() or gs.dateGenerate('yyyy-MM-dd','HH:mm:ss') are supported",
                offset: start)
        }
        var position = skipSpaces(start + Token.javascript.count, end)
        guard hasPrefix(Token.glideSystem, at: position, end: end) else { throw unsupported }
        position += Token.glideSystem.count
        let nameStart = position
        while position < end && EncodedQueryByte.isLetter(bytes[position]) { position += 1 }
        let name = string(nameStart, position)
        position = skipSpaces(position, end)
        guard position < end && bytes[position] == EncodedQueryByte.openParen else { throw unsupported }
        position = skipSpaces(position + 1, end)
        var arguments: [Range<Int>] = []
        if position < end && bytes[position] == EncodedQueryByte.closeParen {
            position += 1
        } else {
            while true {
                let argumentStart = position
                if position < end
                    && (bytes[position] == EncodedQueryByte.singleQuote
                        || bytes[position] == EncodedQueryByte.doubleQuote)
                {
                    let quote = bytes[position]
                    position += 1
                    while position < end && bytes[position] != quote { position += 1 }
                    guard position < end else { throw unsupported }
                    position += 1
                } else {
                    while position < end && EncodedQueryByte.isArgumentByte(bytes[position]) { position += 1 }
                }
                guard position > argumentStart else { throw unsupported }
                arguments.append(argumentStart..<position)
                position = skipSpaces(position, end)
                guard position < end else { throw unsupported }
                if bytes[position] == EncodedQueryByte.closeParen {
                    position += 1
                    break
                }
                guard bytes[position] == EncodedQueryByte.comma else { throw unsupported }
                position = skipSpaces(position + 1, end)
            }
        }
        position = skipSpaces(position, end)
        if position < end && bytes[position] == EncodedQueryByte.semicolon { position = skipSpaces(position + 1, end) }
        guard position == end else { throw unsupported }
        guard let helper = try makeDateHelper(name, arguments, offset: start) else { throw unsupported }
        return helper
    }

    /// Builds the helper named `name`; `nil` when no helper has that name.
    private func makeDateHelper(_ name: String, _ arguments: [Range<Int>], offset: Int) throws(EncodedQueryError)
        -> EncodedQuery.DateHelper?
    {
        func noArguments(_ helper: EncodedQuery.DateHelper) throws(EncodedQueryError) -> EncodedQuery.DateHelper {
            guard arguments.isEmpty else {
                throw EncodedQueryError(message: "gs.\(name)() takes no arguments", offset: offset)
            }
            return helper
        }
        func integer(_ make: (Int) -> EncodedQuery.DateHelper) throws(EncodedQueryError) -> EncodedQuery.DateHelper {
            guard arguments.count == 1, let value = parseInteger(arguments[0], allowSign: true) else {
                throw EncodedQueryError(
                    message: "gs.\(name)(n) takes one whole number in -\(Limits.maximumCount)...\(Limits.maximumCount)",
                    offset: arguments.first?.lowerBound ?? offset)
            }
            return make(value)
        }
        switch name {
        case "daysAgo": return try integer(EncodedQuery.DateHelper.daysAgo)
        case "daysAgoStart": return try integer(EncodedQuery.DateHelper.daysAgoStart)
        case "daysAgoEnd": return try integer(EncodedQuery.DateHelper.daysAgoEnd)
        case "hoursAgo": return try integer(EncodedQuery.DateHelper.hoursAgo)
        case "hoursAgoStart": return try integer(EncodedQuery.DateHelper.hoursAgoStart)
        case "hoursAgoEnd": return try integer(EncodedQuery.DateHelper.hoursAgoEnd)
        case "minutesAgo": return try integer(EncodedQuery.DateHelper.minutesAgo)
        case "minutesAgoStart": return try integer(EncodedQuery.DateHelper.minutesAgoStart)
        case "minutesAgoEnd": return try integer(EncodedQuery.DateHelper.minutesAgoEnd)
        case "monthsAgo": return try integer(EncodedQuery.DateHelper.monthsAgo)
        case "monthsAgoStart": return try integer(EncodedQuery.DateHelper.monthsAgoStart)
        case "monthsAgoEnd": return try integer(EncodedQuery.DateHelper.monthsAgoEnd)
        case "quartersAgo": return try integer(EncodedQuery.DateHelper.quartersAgo)
        case "quartersAgoStart": return try integer(EncodedQuery.DateHelper.quartersAgoStart)
        case "quartersAgoEnd": return try integer(EncodedQuery.DateHelper.quartersAgoEnd)
        case "yearsAgo": return try integer(EncodedQuery.DateHelper.yearsAgo)
        case "yearsAgoStart": return try integer(EncodedQuery.DateHelper.yearsAgoStart)
        case "yearsAgoEnd": return try integer(EncodedQuery.DateHelper.yearsAgoEnd)
        case "beginningOfToday": return try noArguments(.beginningOfToday)
        case "endOfToday": return try noArguments(.endOfToday)
        case "beginningOfYesterday": return try noArguments(.beginningOfYesterday)
        case "endOfYesterday": return try noArguments(.endOfYesterday)
        case "beginningOfTomorrow": return try noArguments(.beginningOfTomorrow)
        case "endOfTomorrow": return try noArguments(.endOfTomorrow)
        case "now", "nowDateTime": return try noArguments(.now)
        case "dateGenerate": return try makeDateGenerate(arguments, offset: offset)
        default: break
        }
        for offsetKind in EncodedQuery.PeriodOffset.allCases {
            for period in EncodedQuery.Period.allCases {
                let suffix = offsetKind.rawValue + period.rawValue
                if name == "beginningOf" + suffix { return try noArguments(.beginningOf(period, offsetKind)) }
                if name == "endOf" + suffix { return try noArguments(.endOf(period, offsetKind)) }
            }
        }
        return nil
    }

    private func makeDateGenerate(_ arguments: [Range<Int>], offset: Int) throws(EncodedQueryError)
        -> EncodedQuery.DateHelper
    {
        let usage = "gs.dateGenerate('yyyy-MM-dd','HH:mm:ss'|'start'|'end')"
        guard arguments.count == 2, let date = quotedArgument(arguments[0]), let time = quotedArgument(arguments[1])
        else {
            throw EncodedQueryError(message: "expected \(usage)", offset: arguments.first?.lowerBound ?? offset)
        }
        guard TableAPIDateFormat.dateComponents(ofDate: date) != nil else {
            throw EncodedQueryError(
                message: "invalid date \"\(date)\" in \(usage)", offset: arguments[0].lowerBound)
        }
        guard time == "start" || time == "end" || TableAPIDateFormat.timeComponents(ofTime: time) != nil else {
            throw EncodedQueryError(
                message: "invalid time \"\(time)\" in \(usage)", offset: arguments[1].lowerBound)
        }
        return .dateGenerate(date: date, time: time)
    }

    private func quotedArgument(_ range: Range<Int>) -> String? {
        guard range.count >= 2,
            bytes[range.lowerBound] == EncodedQueryByte.singleQuote
                || bytes[range.lowerBound] == EncodedQueryByte.doubleQuote
        else { return nil }
        return string(range.lowerBound + 1, range.upperBound - 1)
    }

    // MARK: Lexical helpers

    private func hasPrefix(_ token: [UInt8], at position: Int, end: Int) -> Bool {
        guard end - position >= token.count else { return false }
        for index in 0..<token.count where bytes[position + index] != token[index] { return false }
        return true
    }

    /// `[A-Za-z0-9_]+` parts separated by single dots.
    private func isFieldName(_ start: Int, _ end: Int) -> Bool {
        guard start < end else { return false }
        var partLength = 0
        for position in start..<end {
            let byte = bytes[position]
            if byte == EncodedQueryByte.dot {
                guard partLength > 0 else { return false }
                partLength = 0
            } else if EncodedQueryByte.isFieldByte(byte) {
                partLength += 1
            } else {
                return false
            }
        }
        return partLength > 0
    }

    private func parseInteger(_ range: Range<Int>, allowSign: Bool) -> Int? {
        var position = range.lowerBound
        var negative = false
        if allowSign && position < range.upperBound
            && (bytes[position] == EncodedQueryByte.minus || bytes[position] == EncodedQueryByte.plus)
        {
            negative = bytes[position] == EncodedQueryByte.minus
            position += 1
        }
        guard position < range.upperBound else { return nil }
        var value = 0
        while position < range.upperBound {
            let byte = bytes[position]
            guard EncodedQueryByte.isDigit(byte) else { return nil }
            value = value * 10 + Int(byte - EncodedQueryByte.zero)
            guard value <= Limits.maximumCount else { return nil }
            position += 1
        }
        return negative ? -value : value
    }

    private func split(_ start: Int, _ end: Int, on separator: UInt8) -> [Range<Int>] {
        var parts: [Range<Int>] = []
        var partStart = start
        for position in start...end where position == end || bytes[position] == separator {
            parts.append(partStart..<position)
            partStart = position + 1
        }
        return parts
    }

    private func skipSpaces(_ start: Int, _ end: Int) -> Int {
        var position = start
        while position < end && bytes[position] == EncodedQueryByte.space { position += 1 }
        return position
    }

    private func string(_ start: Int, _ end: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    /// The text between `start` and `end` in double quotes, shortened for messages.
    private func quoted(_ start: Int, _ end: Int) -> String {
        let limit = 60
        if end - start > limit { return "\"\(string(start, start + limit))…\"" }
        return "\"\(string(start, end))\""
    }
}

/// What an operator token means: a supported operator or a construct we recognise only to reject it.
private enum OperatorToken: Sendable {
    case supported(EncodedQuery.Operator)
    case unsupported(String)
}

private enum Limits {
    /// Largest magnitude accepted for helper arguments and `RELATIVE…` counts; keeps date
    /// arithmetic far away from overflow.
    static let maximumCount = 1_000_000
}

private enum Token {
    static let orderByDesc = Array("ORDERBYDESC".utf8)
    static let orderBy = Array("ORDERBY".utf8)
    static let endMarker = Array("EQ".utf8)
    static let or = Array("OR".utf8)
    static let newQuery = Array("NQ".utf8)
    static let javascript = Array("javascript:".utf8)
    static let glideSystem = Array("gs.".utf8)
    static let unsupportedSegments = ["RLQUERY", "ENDRLQUERY", "SUBQUERY", "ENDSUBQUERY"].map { Array($0.utf8) }
    /// Pseudo-fields containing upper-case letters that could be mistaken for operators.
    static let pseudoFields = ["123TEXTQUERY321", "123TEXTINDEXGROUP321"].map { Array($0.utf8) }

    /// Word operators, longest first so the first match at a position is the longest.
    static let wordOperators: [([UInt8], OperatorToken)] = {
        var table: [(String, OperatorToken)] = EncodedQuery.Operator.allCases
            .filter { $0.rawValue.first?.isUppercase == true }
            .map { ($0.rawValue, .supported($0)) }
        table.append(("NOTLIKE", .supported(.notLike)))
        for name in [
            "DYNAMIC", "IN_HIERARCHY", "IN_HIERARCHY_DYNAMIC", "DATEPART", "MORETHAN", "LESSTHAN", "VALCHANGES",
            "CHANGESFROM", "CHANGESTO", "DOESNOTHAVE", "EXCLUDING",
        ] {
            table.append((name, .unsupported(name)))
        }
        return table.map { (Array($0.0.utf8), $0.1) }.sorted { $0.0.count > $1.0.count }
    }()

    /// Symbolic operators and aliases, two-character tokens first.
    static let symbolicOperators: [([UInt8], OperatorToken)] = {
        let table: [(String, EncodedQuery.Operator)] = [
            ("!=", .notEquals), ("!*", .notLike), ("<=", .lessThanOrEquals), (">=", .greaterThanOrEquals),
            ("<", .lessThan), (">", .greaterThan), ("=", .equals), ("*", .like), ("%", .endsWith),
        ]
        return table.map { (Array($0.0.utf8), OperatorToken.supported($0.1)) }
    }()
}

/// ASCII bytes and classes used by the parser.
enum EncodedQueryByte {
    static let caret = UInt8(ascii: "^")
    static let comma = UInt8(ascii: ",")
    static let at = UInt8(ascii: "@")
    static let dot = UInt8(ascii: ".")
    static let space = UInt8(ascii: " ")
    static let minus = UInt8(ascii: "-")
    static let plus = UInt8(ascii: "+")
    static let colon = UInt8(ascii: ":")
    static let zero = UInt8(ascii: "0")
    static let semicolon = UInt8(ascii: ";")
    static let openParen = UInt8(ascii: "(")
    static let closeParen = UInt8(ascii: ")")
    static let singleQuote = UInt8(ascii: "'")
    static let doubleQuote = UInt8(ascii: "\"")

    static func isDigit(_ byte: UInt8) -> Bool { byte >= zero && byte <= UInt8(ascii: "9") }
    static func isUpper(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") }
    static func isLower(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") }
    static func isLetter(_ byte: UInt8) -> Bool { isUpper(byte) || isLower(byte) }
    /// `[A-Za-z0-9_.]`: a character of a (possibly dot-walked) field name.
    static func isFieldByte(_ byte: UInt8) -> Bool {
        isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "_") || byte == dot
    }
    /// Characters of an unquoted helper argument (a signed integer).
    static func isArgumentByte(_ byte: UInt8) -> Bool { isDigit(byte) || byte == minus || byte == plus }
}

import Foundation

/// The body of a page that its records' values point into: ``FastPageDecoder`` keeps each value as a
/// byte range of the body (``TextRange``) and makes a `String` only when one is read, so the forms and
/// fields a transform does not read are never copied.
///
/// The records of a page hold this object, so the body lives as long as any of them; a page's records
/// are dropped once its rows are transformed (the rows hold their own text), so a run keeps no more
/// bodies than it has pages in flight.
final class PageText: Sendable {
    /// The page body as received (not copied).
    let body: Data
    /// Texts the parser made because the body does not hold them as written: numbers in
    /// `NSNumber.stringValue` form other than plain integers, and `1`/`0` for `true`/`false`.
    let extras: [String]

    init(body: Data, extras: [String]) {
        self.body = body
        self.extras = extras
    }

    /// The text of `range`, `nil` when it is absent.
    func string(_ range: TextRange) -> String? {
        switch range.kind {
        case .absent:
            return nil
        case .extra:
            return extras[Int(range.start)]
        case .plain, .escaped:
            return body.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> String in
                guard let address = bytes.baseAddress else { return "" }
                let base = address.assumingMemoryBound(to: UInt8.self)
                return FastPageParser.text(
                    base: base, start: Int(range.start), count: Int(range.count), escaped: range.kind == .escaped)
            }
        }
    }

    /// Calls `body` with the bytes of a ``TextRange/Kind/plain`` range (the text as it is).
    func withBytes(_ range: TextRange, _ use: (UnsafeBufferPointer<UInt8>) -> Void) {
        body.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            let text = UnsafeRawBufferPointer(rebasing: bytes[Int(range.start)..<Int(range.start + range.count)])
            use(text.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// The value `raw` stands for, `nil` for a field the record does not have.
    func value(_ raw: RawValue) -> Record.Value? {
        switch raw.shape {
        case .absent: return nil
        case .null: return .null
        case .text: return .text(string(raw.value) ?? "")
        case .forms:
            return .forms(value: string(raw.value), displayValue: string(raw.displayValue), link: string(raw.link))
        }
    }
}

/// Where one text of a value is in its ``PageText``: a range of the body's bytes between a string's
/// quotes (or an integer's digits), flagged when it holds escapes to undo; or an entry of the page's
/// ``PageText/extras``; or nothing.
struct TextRange: Sendable, Hashable {
    /// How the range is read.
    enum Kind: UInt8, Sendable {
        /// No text (a missing form, `null`).
        case absent
        /// The body's bytes as they are.
        case plain
        /// The body's bytes with JSON escapes to undo.
        case escaped
        /// ``PageText/extras`` at index ``start``.
        case extra
    }

    /// The first byte in the body (the index in the extras for ``Kind/extra``).
    var start: UInt32
    /// The number of bytes.
    var count: UInt32
    var kind: Kind

    static let absent = TextRange(start: 0, count: 0, kind: .absent)
}

/// One field's value as byte ranges of its page: the shape of ``Record/Value`` without its strings, so
/// a page's values are plain memory (no reference counting) until a transform reads one.
///
/// Stored packed: the three ranges' numbers, then their kinds and the shape, 28 bytes a value where
/// three ``TextRange`` fields took 40 (each padded to 12). A page of 1000 records of 90 fields holds
/// 90,000 of them while it is transformed.
struct RawValue: Sendable, Hashable {
    /// Which ``Record/Value`` case it is, or that the record has no such field.
    enum Shape: UInt8, Sendable {
        case absent
        case text
        case forms
        case null
    }

    private var valueStart: UInt32
    private var valueCount: UInt32
    private var displayValueStart: UInt32
    private var displayValueCount: UInt32
    private var linkStart: UInt32
    private var linkCount: UInt32
    private var valueKind: TextRange.Kind
    private var displayValueKind: TextRange.Kind
    private var linkKind: TextRange.Kind
    var shape: Shape

    init(shape: Shape, value: TextRange, displayValue: TextRange, link: TextRange) {
        (valueStart, valueCount, valueKind) = (value.start, value.count, value.kind)
        (displayValueStart, displayValueCount, displayValueKind) =
            (displayValue.start, displayValue.count, displayValue.kind)
        (linkStart, linkCount, linkKind) = (link.start, link.count, link.kind)
        self.shape = shape
    }

    /// The text of ``Shape/text``; the stored value of ``Shape/forms``.
    var value: TextRange {
        get { TextRange(start: valueStart, count: valueCount, kind: valueKind) }
        set { (valueStart, valueCount, valueKind) = (newValue.start, newValue.count, newValue.kind) }
    }
    /// The display value of ``Shape/forms``.
    var displayValue: TextRange {
        get { TextRange(start: displayValueStart, count: displayValueCount, kind: displayValueKind) }
        set {
            (displayValueStart, displayValueCount, displayValueKind) = (newValue.start, newValue.count, newValue.kind)
        }
    }
    /// The reference link of ``Shape/forms``.
    var link: TextRange {
        get { TextRange(start: linkStart, count: linkCount, kind: linkKind) }
        set { (linkStart, linkCount, linkKind) = (newValue.start, newValue.count, newValue.kind) }
    }

    static let absent = RawValue(shape: .absent, value: .absent, displayValue: .absent, link: .absent)
    static let null = RawValue(shape: .null, value: .absent, displayValue: .absent, link: .absent)

    /// A plain string (or a scalar's text).
    static func text(_ range: TextRange) -> RawValue {
        RawValue(shape: .text, value: range, displayValue: .absent, link: .absent)
    }

    /// The text at a path (``Record/text(whole:part:form:plainForm:)`` over ranges): `whole` is the
    /// value of the path's whole text as a field, `part` that of the field before its form component.
    @inline(__always)
    static func range(whole: RawValue, part: RawValue, form: RecordPath.Form?, plainForm: RecordPath.Form)
        -> TextRange
    {
        switch whole.shape {
        case .text: return whole.value
        case .forms:
            // As Record.text: the field alone means the form the pipeline asked for, else the other.
            if plainForm == .displayValue {
                return whole.displayValue.kind != .absent ? whole.displayValue : whole.value
            }
            return whole.value.kind != .absent ? whole.value : whole.displayValue
        case .null: return .absent
        case .absent: break
        }
        guard let form else { return .absent }
        switch part.shape {
        case .text: return form == plainForm ? part.value : .absent
        case .forms:
            switch form {
            case .value: return part.value
            case .displayValue: return part.displayValue
            case .link: return part.link
            }
        case .null, .absent: return .absent
        }
    }
}

/// The values of one record of a page, by slot of its ``RecordLayout``.
struct PageValues: Sendable {
    /// The page the ranges point into.
    let page: PageText
    /// One value per slot (``RawValue/absent`` where the record has no such field).
    let raw: [RawValue]

    /// The number of slots.
    var count: Int { raw.count }

    /// The value at `slot`, as a ``Record/Value`` (`nil` when the record has no such field).
    subscript(slot: Int) -> Record.Value? {
        page.value(raw[slot])
    }
}

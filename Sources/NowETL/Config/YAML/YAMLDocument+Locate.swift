extension YAMLDocument {
    /// The node at a coding path (and the mark of the key that holds it), or the deepest node on the
    /// way with `isComplete` false when the path leaves the tree.
    func locate(_ codingPath: [any CodingKey]) -> (node: YAMLNode, keyMark: YAMLNode.Mark?, isComplete: Bool) {
        var node = root
        var keyMark: YAMLNode.Mark?
        for key in codingPath {
            if let index = key.intValue, let items = node.items {
                guard index >= 0, index < items.count else { return (node, nil, false) }
                node = items[index]
                keyMark = nil
            } else if let entry = node.entries?.first(where: { $0.key == key.stringValue }) {
                node = entry.value
                keyMark = entry.keyMark
            } else {
                return (node, nil, false)
            }
        }
        return (node, keyMark, true)
    }

    /// The mark of the character at `utf8Offset` of the substituted value at `codingPath` (its start
    /// without an offset): ``position(ofUTF8Offset:in:)`` after mapping the offset back through the
    /// `${VAR}` substitution.
    func mark(
        at codingPath: [any CodingKey], utf8Offset: Int?, interpolation: EnvironmentInterpolation,
        pointsAtKey: Bool = false
    ) -> YAMLNode.Mark {
        let located = locate(codingPath)
        var mark = pointsAtKey ? (located.keyMark ?? located.node.mark) : located.node.mark
        if let utf8Offset, located.isComplete, let raw = located.node.scalar?.text {
            let rawOffset = interpolation.sourceOffset(ofExpandedOffset: utf8Offset, in: raw)
            mark = position(ofUTF8Offset: rawOffset, in: located.node)
        }
        return mark
    }
}

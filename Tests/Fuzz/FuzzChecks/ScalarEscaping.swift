extension String {
    /// This text with every scalar that `replacement` maps written as what it returns, the others kept:
    /// the escapers of the checks that write their input back into a format (`.env`, XML).
    func replacingScalars(_ replacement: (Unicode.Scalar) -> String?) -> String {
        var text = ""
        for scalar in unicodeScalars {
            if let replaced = replacement(scalar) {
                text += replaced
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }
}

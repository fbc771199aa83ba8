extension ProgressLine {
    /// The live line of an output's phase: table, output, phase, rows (of the total), percent, rate, ETA.
    ///
    /// ```
    /// incident → instance https://target.service-now.com  writing 120/600 rows  20%  40 rows/s  ETA 0:12
    /// ```
    static func rendered(_ output: OutputProgress, table: String, elapsed: Double) -> String {
        let numbers = Numbers(output, elapsed: elapsed)
        var text = table + " → " + output.output + "  " + output.phase.rawValue + " " + String(output.rows)
        if let total = output.total { text += "/" + String(total) }
        text += " rows"
        if let fraction = numbers.fraction { text += "  " + String(Int((fraction * 100).rounded(.down))) + "%" }
        if let rate = numbers.rate { text += "  " + String(Int(rate.rounded())) + " rows/s" }
        if let remaining = numbers.remaining { text += "  ETA " + duration(remaining) }
        return text
    }

    /// The fields of a periodic progress log line of an output's phase.
    static func logFields(_ output: OutputProgress, table: String, elapsed: Double) -> [(String, any LogFieldValue)] {
        let numbers = Numbers(output, elapsed: elapsed)
        var fields: [(String, any LogFieldValue)] = [
            ("table", table), ("output", output.output), ("phase", output.phase.rawValue), ("rows", output.rows),
        ]
        if let total = output.total { fields.append(("total", total)) }
        if let rate = numbers.rate { fields.append(("rows_per_second", Int(rate.rounded()))) }
        if let remaining = numbers.remaining { fields.append(("eta_seconds", Int(remaining.rounded(.up)))) }
        return fields
    }

    /// Rate, fraction and time left of a phase, as the extraction's line computes them.
    private struct Numbers {
        var rate: Double?
        var fraction: Double?
        var remaining: Double?

        init(_ output: OutputProgress, elapsed: Double) {
            rate = elapsed > 0 ? Double(output.rows) / elapsed : nil
            if let total = output.total, total > 0 { fraction = min(1, Double(output.rows) / Double(total)) }
            if let total = output.total, let rate, rate > 0 { remaining = Double(max(0, total - output.rows)) / rate }
        }
    }
}

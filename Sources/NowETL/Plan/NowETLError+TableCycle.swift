extension NowETLError {
    /// Tables of a run that reference each other in a cycle, so no order writes every referenced table
    /// first (``TableOrder/computed(_:ancestors:)``): a configuration problem (``Code/tableCycle``,
    /// exit 78), the pipeline decides with an explicit `order:`.
    ///
    /// `cycle` has one step per table: each ``TableOrder/Dependency/table`` references the next step's
    /// table (the last step's ``TableOrder/Dependency/after`` is the first step's table). The error's
    /// ``Context/tables`` are the cycle's tables in cycle order; the message names them and the fields that
    /// close it: `the tables sys_user, cmn_department reference each other in a cycle:
    /// sys_user.department → cmn_department, then cmn_department.dept_head → sys_user; …`.
    static func tableCycle(_ cycle: [TableOrder.Dependency], file: String = #fileID, line: Int = #line) -> NowETLError {
        let tables = cycle.map(\.table)
        return NowETLError(
            .tableCycle,
            "the tables \(tables.joined(separator: ", ")) reference each other in a cycle: "
                + cycle.map(\.edges).joined(separator: ", then ")
                + "; no order writes every referenced table first. Give the pipeline an explicit order: listing "
                + "every table in the order to write them (for example order: [\(tables.joined(separator: ", "))]); "
                + "the references of the tables written first then point at rows the target gets later",
            context: Context(tables: tables), file: file, line: line)
    }
}

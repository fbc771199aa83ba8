/// Tables of a run that reference each other in a cycle, so no order writes every referenced table first
/// (``TableOrder/computed(_:ancestors:)``).
///
/// A configuration problem (exit 78): the pipeline decides with an explicit `order:`. The message names
/// every table of the cycle and the fields that close it:
/// `the tables reference each other in a cycle: sys_user.department → cmn_department, then
/// cmn_department.dept_head → sys_user; …`.
public struct TableOrderError: Error, Sendable, Hashable, CustomStringConvertible, ExitCodeProviding {
    /// The cycle, one step per table: each ``TableOrder/Dependency/table`` references the next step's
    /// table (the last step's ``TableOrder/Dependency/after`` is the first step's table).
    public var cycle: [TableOrder.Dependency]

    /// Creates an error.
    public init(cycle: [TableOrder.Dependency]) {
        self.cycle = cycle
    }

    /// The tables of the cycle, in cycle order, each once.
    public var tables: [String] { cycle.map(\.table) }

    /// The problem and what to do about it.
    public var description: String {
        "the tables \(tables.joined(separator: ", ")) reference each other in a cycle: "
            + cycle.map(\.edges).joined(separator: ", then ")
            + "; no order writes every referenced table first. Give the pipeline an explicit order: listing "
            + "every table in the order to write them (for example order: [\(tables.joined(separator: ", "))]); "
            + "the references of the tables written first then point at rows the target gets later"
    }

    /// ``NowETLExitCode/configuration`` (78): the pipeline must say the order.
    public var exitCode: Int32 { NowETLExitCode.configuration }
}

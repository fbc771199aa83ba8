/// The field names of a page's records, each at a slot: records decoded from one page share one
/// layout and hold their values by slot, so a page builds no dictionary per record and a
/// ``RecordTransformer`` resolves each column's path to a slot once per layout, not once per record.
///
/// A layout never changes once made; a page whose later records bring new field names gets a new,
/// longer layout whose first slots are the old one's.
final class RecordLayout: Sendable {
    /// The field names, by slot.
    let names: [String]
    private let slots: [String: Int]
    /// The slot of `sys_id`, when the layout has it.
    let sysIDSlot: Int?

    /// Creates a layout of distinct `names`, by slot.
    init(names: [String], slots: [String: Int]) {
        self.names = names
        self.slots = slots
        sysIDSlot = slots["sys_id"]
    }

    /// The slot of `field`, when the layout has it.
    func slot(of field: String) -> Int? {
        slots[field]
    }
}

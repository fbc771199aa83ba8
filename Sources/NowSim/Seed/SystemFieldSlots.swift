/// The writer slots of the system fields, resolved once per table.
struct SystemFieldSlots {
    let sysID: Int
    let createdOn: Int
    let createdBy: Int
    let updatedOn: Int
    let updatedBy: Int
    let modCount: Int
    let className: Int
    let domain: Int
    let domainPath: Int

    init(_ writer: RowWriter) {
        sysID = writer.requiredSlot("sys_id")
        createdOn = writer.requiredSlot("sys_created_on")
        createdBy = writer.requiredSlot("sys_created_by")
        updatedOn = writer.requiredSlot("sys_updated_on")
        updatedBy = writer.requiredSlot("sys_updated_by")
        modCount = writer.requiredSlot("sys_mod_count")
        className = writer.requiredSlot("sys_class_name")
        domain = writer.requiredSlot("sys_domain")
        domainPath = writer.requiredSlot("sys_domain_path")
    }

    /// Sets all system fields of one row.
    func write(
        to writer: inout RowWriter, sysID: SysIDBits, className: String, created: Int, createdBy: String, updated: Int,
        updatedBy: String, modCount: Int
    ) {
        writer.set(self.sysID, sysID: sysID)
        writer.set(createdOn, dateTime: created)
        writer.set(self.createdBy, createdBy)
        writer.set(updatedOn, dateTime: max(created, updated))
        writer.set(self.updatedBy, updatedBy)
        writer.set(self.modCount, integer: modCount)
        writer.set(self.className, className)
        writer.set(domain, "global")
        writer.set(domainPath, "/")
    }
}

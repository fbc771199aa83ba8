/// The tables a fresh nowsim database has, with ServiceNow's column names, labels, types, lengths,
/// references and choice lists (ref §5, §7.4).
///
/// Parents come before children. Every hierarchy root carries the system fields; children inherit them.
enum StandardSchema {
    /// All built-in tables, parents before children.
    static let tables: [TableSpec] = [
        sysDBObject, sysDictionary, sysChoice,
        coreCompany, cmnLocation, sysUser, sysUserGroup, sysUserGrmember, sysUserRole, sysUserHasRole,
        cmdbCI, cmdbCIServer,
        task, incident, problem, changeRequest,
        sysAuditDelete,
        sysapprovalApprover, sysScript, syseventEmailAction, sysEmail, sysHubFlow, sysFlowTrigger,
        sysFlowRecordTrigger,
        sysAttachment, sysAttachmentDoc, sysJournalField, sysAudit,
    ]

    /// Tables added after layout version 2. Their schema rows draw their sys_ids from streams of their
    /// own, so that the schema rows of the older tables keep theirs (see `Database.insertSchemaRows`).
    static let laterTables: Set<String> = [
        "sysapproval_approver", "sys_script", "sysevent_email_action", "sys_email", "sys_hub_flow",
        "sys_flow_trigger", "sys_flow_record_trigger", "sys_attachment", "sys_attachment_doc", "sys_journal_field",
        "sys_audit",
    ]

    /// Columns added to older tables after layout version 2, as `table.element`; their dictionary rows
    /// draw from streams of their own, as ``laterTables`` do.
    static let laterColumns: Set<String> = ["task.watch_list", "sys_dictionary.dependent_on_field"]

    /// Secondary indexes beyond the standard ones (``Database/indexedColumns(of:)``), as `(table,
    /// columns)`: the lookups of a record's attachments, an attachment's chunks in order, a record's
    /// journal entries and audit rows.
    static let extraIndexes: [(table: String, columns: [String])] = [
        ("sys_attachment", ["table_sys_id"]), ("sys_attachment_doc", ["sys_attachment", "position"]),
        ("sys_journal_field", ["element_id"]), ("sys_audit", ["documentkey"]),
    ]

    /// The spec of the table named `name`.
    static func table(_ name: String) -> TableSpec? { tables.first { $0.name == name } }

    /// The hierarchy root of `name`.
    static func root(of name: String) -> String {
        var current = name
        while let parent = table(current)?.superClass { current = parent }
        return current
    }

    /// The physical columns of a root's SQLite table: `sys_id` first, then the columns of the root and
    /// of every descendant in definition order, each once.
    static func storageColumns(root: String) -> [String] {
        var seen: Set<String> = ["sys_id"]
        var result = ["sys_id"]
        for table in tables where Self.root(of: table.name) == root {
            for column in table.columns where seen.insert(column.element).inserted {
                result.append(column.element)
            }
        }
        return result
    }

    /// The columns of a root's hierarchy that have a unique index (besides `sys_id`).
    static func uniqueColumns(root: String) -> [String] {
        tables.filter { Self.root(of: $0.name) == root }.flatMap { $0.columns.filter(\.unique).map(\.element) }
    }

    /// The hierarchy roots, in definition order.
    static var roots: [String] { tables.filter { $0.superClass == nil }.map(\.name) }

    // MARK: - System fields

    /// The system fields of every root table (ref §5).
    static let systemFields: [ColumnSpec] = [
        ColumnSpec("sys_id", "Sys ID", "GUID", 32).asReadOnly(),
        ColumnSpec("sys_created_on", "Created", "glide_date_time", 40).asReadOnly(),
        ColumnSpec("sys_created_by", "Created by", "string", 40).asReadOnly(),
        ColumnSpec("sys_updated_on", "Updated", "glide_date_time", 40).asReadOnly(),
        ColumnSpec("sys_updated_by", "Updated by", "string", 40).asReadOnly(),
        ColumnSpec("sys_mod_count", "Updates", "integer", 40).asReadOnly(),
        ColumnSpec("sys_class_name", "Class", "sys_class_name", 80).asReadOnly(),
        ColumnSpec("sys_tags", "Tags", "string", 4000),
        ColumnSpec("sys_domain", "Domain", "domain_id", 32, reference: "sys_user_group").withDefault("global"),
        ColumnSpec("sys_domain_path", "Domain Path", "domain_path", 255).withDefault("/"),
    ]

    private static func root(
        _ name: String, _ label: String, extendable: Bool = false, _ columns: [ColumnSpec]
    ) -> TableSpec {
        TableSpec(name: name, label: label, superClass: nil, extendable: extendable, columns: columns + systemFields)
    }

    // MARK: - Schema tables

    static let sysDBObject = root(
        "sys_db_object", "Table",
        [
            ColumnSpec.string("name", "Name", 80).asMandatory(),
            ColumnSpec.string("label", "Label", 80).asDisplay(),
            ColumnSpec.reference("super_class", "Extends table", "sys_db_object"),
            ColumnSpec.boolean("is_extendable", "Extensible", default: false),
            ColumnSpec.string("sys_scope", "Application", 32).withDefault("global"),
            ColumnSpec.string("access", "Accessible from", 40).withDefault("public"),
        ])

    static let sysDictionary = root(
        "sys_dictionary", "Dictionary Entry",
        [
            ColumnSpec("name", "Table", "table_name", 80).asMandatory(),
            ColumnSpec.string("element", "Column name", 80),
            ColumnSpec.string("column_label", "Column label", 80),
            ColumnSpec.string("internal_type", "Type", 40),
            ColumnSpec.integer("max_length", "Max length"),
            ColumnSpec.string("reference", "Reference", 80),
            ColumnSpec.boolean("mandatory", "Mandatory", default: false),
            ColumnSpec.boolean("read_only", "Read only", default: false),
            ColumnSpec.string("default_value", "Default value", 512),
            ColumnSpec.boolean("active", "Active", default: true),
            ColumnSpec.boolean("display", "Display", default: false),
            ColumnSpec.boolean("primary", "Primary", default: false),
            ColumnSpec.integer("choice", "Choice").withChoices([
                ChoiceSpec("1", "Dropdown with -- None --"),
                ChoiceSpec("2", "Suggestion"),
                ChoiceSpec("3", "Dropdown without -- None -- (must specify a default value)"),
            ]),
            ColumnSpec.string("dependent", "Dependent", 80),
            ColumnSpec.string("attributes", "Attributes", 1000),
            ColumnSpec.boolean("unique", "Unique", default: false),
            ColumnSpec.string("dependent_on_field", "Dependent on field", 80),
        ])

    static let sysChoice = root(
        "sys_choice", "Choices",
        [
            ColumnSpec("name", "Table", "table_name", 80).asMandatory(),
            ColumnSpec.string("element", "Element", 80),
            ColumnSpec.string("value", "Value", 40),
            ColumnSpec.string("label", "Label", 100).asDisplay(),
            ColumnSpec.integer("sequence", "Sequence"),
            ColumnSpec.boolean("inactive", "Inactive", default: false),
            ColumnSpec.string("language", "Language", 40).withDefault("en"),
            ColumnSpec.string("dependent_value", "Dependent value", 40),
            ColumnSpec.string("hint", "Hint", 255),
        ])

    // MARK: - Foundation data

    static let coreCompany = root(
        "core_company", "Company", extendable: true,
        [
            ColumnSpec.string("name", "Name", 80).asDisplay(),
            ColumnSpec.string("street", "Street", 255),
            ColumnSpec.string("city", "City", 50),
            ColumnSpec.string("state", "State / Province", 40),
            ColumnSpec.string("zip", "Zip / Postal code", 40),
            ColumnSpec.string("country", "Country", 40),
            ColumnSpec("phone", "Phone", "ph_number", 40),
            ColumnSpec("fax_phone", "Fax phone", "ph_number", 40),
            ColumnSpec("website", "Website", "url", 1024),
            ColumnSpec.string("stock_symbol", "Stock symbol", 10),
            ColumnSpec.decimal("stock_price", "Stock price"),
            ColumnSpec.integer("num_employees", "Number of employees"),
            ColumnSpec.boolean("customer", "Customer", default: false),
            ColumnSpec.boolean("vendor", "Vendor", default: false),
            ColumnSpec.boolean("manufacturer", "Manufacturer", default: false),
            ColumnSpec.reference("parent", "Parent", "core_company"),
            ColumnSpec.text("notes", "Notes"),
        ])

    static let cmnLocation = root(
        "cmn_location", "Location", extendable: true,
        [
            ColumnSpec.string("name", "Name", 100).asDisplay(),
            ColumnSpec.string("full_name", "Full name", 255),
            ColumnSpec.string("street", "Street", 255),
            ColumnSpec.string("city", "City", 100),
            ColumnSpec.string("state", "State / Province", 100),
            ColumnSpec.string("zip", "Zip / Postal code", 40),
            ColumnSpec.string("country", "Country", 40),
            ColumnSpec.decimal("latitude", "Latitude"),
            ColumnSpec.decimal("longitude", "Longitude"),
            ColumnSpec("phone", "Phone", "ph_number", 40),
            ColumnSpec.string("time_zone", "Time zone", 40),
            ColumnSpec.reference("company", "Company", "core_company"),
            ColumnSpec.reference("parent", "Parent", "cmn_location"),
        ])

    static let sysUser = root(
        "sys_user", "User", extendable: true,
        [
            ColumnSpec.string("user_name", "User ID", 40).asMandatory().asUnique(),
            ColumnSpec.string("first_name", "First name", 50),
            ColumnSpec.string("last_name", "Last name", 50),
            ColumnSpec.string("name", "Name", 151).asDisplay(),
            ColumnSpec("email", "Email", "email", 100),
            ColumnSpec.string("title", "Title", 60),
            ColumnSpec.string("employee_number", "Employee number", 40),
            ColumnSpec("phone", "Business phone", "ph_number", 40),
            ColumnSpec("mobile_phone", "Mobile phone", "ph_number", 40),
            ColumnSpec.reference("company", "Company", "core_company"),
            ColumnSpec.reference("location", "Location", "cmn_location"),
            ColumnSpec.reference("manager", "Manager", "sys_user"),
            ColumnSpec.boolean("active", "Active", default: true),
            ColumnSpec.boolean("locked_out", "Locked out", default: false),
            ColumnSpec.boolean("vip", "VIP", default: false),
            ColumnSpec.boolean("web_service_access_only", "Web service access only", default: false),
            ColumnSpec.boolean("internal_integration_user", "Internal Integration User", default: false),
            ColumnSpec("user_password", "Password", "password", 255),
            ColumnSpec.string("time_zone", "Time zone", 40),
            ColumnSpec.string("preferred_language", "Language", 3),
            ColumnSpec.dateTime("last_login_time", "Last login time"),
            ColumnSpec.string("source", "Source", 255),
            ColumnSpec.integer("notification", "Notification").withDefault("2").withChoices([
                ChoiceSpec("1", "Disable"), ChoiceSpec("2", "Enable"),
            ]),
        ])

    static let sysUserGroup = root(
        "sys_user_group", "Group", extendable: true,
        [
            ColumnSpec.string("name", "Name", 80).asDisplay(),
            ColumnSpec.text("description", "Description", 1000),
            ColumnSpec.reference("manager", "Manager", "sys_user"),
            ColumnSpec("email", "Group email", "email", 100),
            ColumnSpec.boolean("active", "Active", default: true),
            ColumnSpec.string("type", "Type", 1024),
            ColumnSpec.reference("parent", "Parent", "sys_user_group"),
        ])

    static let sysUserGrmember = root(
        "sys_user_grmember", "Group Member",
        [
            ColumnSpec.reference("user", "User", "sys_user").asMandatory(),
            ColumnSpec.reference("group", "Group", "sys_user_group").asMandatory(),
        ])

    static let sysUserRole = root(
        "sys_user_role", "Role",
        [
            ColumnSpec.string("name", "Name", 100).asDisplay(),
            ColumnSpec.text("description", "Description", 1000),
            ColumnSpec.boolean("elevated_privilege", "Elevated privilege", default: false),
            ColumnSpec.string("suffix", "Suffix", 100),
        ])

    static let sysUserHasRole = root(
        "sys_user_has_role", "User Role",
        [
            ColumnSpec.reference("user", "User", "sys_user").asMandatory(),
            ColumnSpec.reference("role", "Role", "sys_user_role").asMandatory(),
            ColumnSpec.string("state", "State", 40).withDefault("active").withChoices([
                ChoiceSpec("active", "Active"), ChoiceSpec("pending", "Pending"),
                ChoiceSpec("inactive", "Inactive"),
            ]),
            ColumnSpec.boolean("inherited", "Inherited", default: false),
            ColumnSpec.reference("granted_by", "Granted by", "sys_user_group"),
        ])

    // MARK: - CMDB

    static let cmdbCI = root(
        "cmdb_ci", "Configuration Item", extendable: true,
        [
            ColumnSpec.string("name", "Name", 255).asDisplay(),
            ColumnSpec.string("asset_tag", "Asset tag", 40),
            ColumnSpec.string("serial_number", "Serial number", 255),
            ColumnSpec.string("model_number", "Model number", 40),
            ColumnSpec.text("short_description", "Description", 1000),
            ColumnSpec.string("category", "Category", 40),
            ColumnSpec.integer("operational_status", "Operational status").withDefault("1").withChoices([
                ChoiceSpec("1", "Operational"), ChoiceSpec("2", "Non-Operational"),
                ChoiceSpec("3", "Repair in Progress"), ChoiceSpec("4", "DR Standby"), ChoiceSpec("5", "Ready"),
                ChoiceSpec("6", "Retired"),
            ]),
            ColumnSpec.integer("install_status", "Status").withDefault("1").withChoices([
                ChoiceSpec("1", "Installed"), ChoiceSpec("2", "On Order"), ChoiceSpec("3", "In Maintenance"),
                ChoiceSpec("4", "Pending Install"), ChoiceSpec("5", "Pending Repair"), ChoiceSpec("6", "In Stock"),
                ChoiceSpec("7", "Retired"), ChoiceSpec("100", "Absent"),
            ]),
            ColumnSpec.reference("company", "Company", "core_company"),
            ColumnSpec.reference("location", "Location", "cmn_location"),
            ColumnSpec.reference("assigned_to", "Assigned to", "sys_user"),
            ColumnSpec.reference("managed_by", "Managed by", "sys_user"),
            ColumnSpec.reference("owned_by", "Owned by", "sys_user"),
            ColumnSpec.reference("support_group", "Support group", "sys_user_group"),
            ColumnSpec.reference("manufacturer", "Manufacturer", "core_company"),
            ColumnSpec.decimal("cost", "Cost"),
            ColumnSpec.date("purchase_date", "Purchased"),
            ColumnSpec.date("warranty_expiration", "Warranty expiration"),
            ColumnSpec.dateTime("install_date", "Installed"),
        ])

    static let cmdbCIServer = TableSpec(
        name: "cmdb_ci_server", label: "Server", superClass: "cmdb_ci", extendable: true,
        columns: [
            ColumnSpec.string("host_name", "Host name", 255),
            ColumnSpec.string("fqdn", "Fully qualified domain name", 255),
            ColumnSpec.string("ip_address", "IP Address", 255),
            ColumnSpec.string("os", "Operating System", 40).withChoices(
                ChoiceSpec.same(
                    "Linux Red Hat", "Linux SuSE", "Linux Ubuntu", "Windows 2016 Standard",
                    "Windows 2019 Datacenter", "Windows 2022 Standard", "AIX", "Solaris", "HP/UX")),
            ColumnSpec.string("os_version", "OS Version", 40),
            ColumnSpec.integer("cpu_count", "CPU count"),
            ColumnSpec.integer("cpu_speed", "CPU speed (MHz)"),
            ColumnSpec.integer("ram", "RAM (MB)"),
            ColumnSpec.decimal("disk_space", "Disk space (GB)"),
            ColumnSpec.boolean("virtual", "Is Virtual", default: false),
            ColumnSpec.string("classification", "Classification", 40).withDefault("Production").withChoices(
                ChoiceSpec.same("Production", "Development", "Test", "QA", "Disaster recovery")),
        ])

    // MARK: - Task hierarchy

    static let taskStates = [
        ChoiceSpec("-5", "Pending"), ChoiceSpec("1", "Open"), ChoiceSpec("2", "Work in Progress"),
        ChoiceSpec("3", "Closed Complete"), ChoiceSpec("4", "Closed Incomplete"), ChoiceSpec("7", "Closed Skipped"),
    ]

    static let highMediumLow = [ChoiceSpec("1", "1 - High"), ChoiceSpec("2", "2 - Medium"), ChoiceSpec("3", "3 - Low")]

    static let task = root(
        "task", "Task", extendable: true,
        [
            ColumnSpec.string("number", "Number", 40).asDisplay().asReadOnly(),
            ColumnSpec.string("short_description", "Short description", 160),
            ColumnSpec.text("description", "Description"),
            ColumnSpec.boolean("active", "Active", default: true),
            ColumnSpec.integer("state", "State").withDefault("1").withChoices(taskStates, mode: 3),
            ColumnSpec.integer("priority", "Priority").withDefault("4").withChoices(
                [
                    ChoiceSpec("1", "1 - Critical"), ChoiceSpec("2", "2 - High"), ChoiceSpec("3", "3 - Moderate"),
                    ChoiceSpec("4", "4 - Low"), ChoiceSpec("5", "5 - Planning"),
                ], mode: 3),
            ColumnSpec.integer("impact", "Impact").withDefault("3").withChoices(highMediumLow, mode: 3),
            ColumnSpec.integer("urgency", "Urgency").withDefault("3").withChoices(highMediumLow, mode: 3),
            ColumnSpec.dateTime("opened_at", "Opened"),
            ColumnSpec.dateTime("closed_at", "Closed"),
            ColumnSpec.dateTime("due_date", "Due date"),
            ColumnSpec.reference("opened_by", "Opened by", "sys_user"),
            ColumnSpec.reference("closed_by", "Closed by", "sys_user"),
            ColumnSpec.reference("assigned_to", "Assigned to", "sys_user"),
            ColumnSpec.reference("assignment_group", "Assignment group", "sys_user_group"),
            ColumnSpec.reference("cmdb_ci", "Configuration item", "cmdb_ci"),
            ColumnSpec.reference("company", "Company", "core_company"),
            ColumnSpec.reference("location", "Location", "cmn_location"),
            ColumnSpec.reference("parent", "Parent", "task"),
            ColumnSpec.journal("work_notes", "Work notes"),
            ColumnSpec.journal("comments", "Additional comments"),
            ColumnSpec.duration("business_duration", "Business duration"),
            ColumnSpec.integer("reassignment_count", "Reassignment count").withDefault("0"),
            ColumnSpec.integer("escalation", "Escalation").withDefault("0").withChoices([
                ChoiceSpec("0", "Normal"), ChoiceSpec("1", "Moderate"), ChoiceSpec("2", "High"),
                ChoiceSpec("3", "Overdue"),
            ]),
            ColumnSpec.string("approval", "Approval", 40).withDefault("not requested").withChoices([
                ChoiceSpec("not requested", "Not Yet Requested"), ChoiceSpec("requested", "Requested"),
                ChoiceSpec("approved", "Approved"), ChoiceSpec("rejected", "Rejected"),
                ChoiceSpec("not_required", "No Longer Required"),
            ]),
            ColumnSpec.string("contact_type", "Contact type", 40).withChoices([
                ChoiceSpec("email", "Email"), ChoiceSpec("phone", "Phone"), ChoiceSpec("self-service", "Self-service"),
                ChoiceSpec("virtual_agent", "Virtual Agent"), ChoiceSpec("walk-in", "Walk-in"),
            ]),
            ColumnSpec.boolean("made_sla", "Made SLA", default: true),
            ColumnSpec.boolean("knowledge", "Knowledge", default: false),
            ColumnSpec.string("correlation_id", "Correlation ID", 100),
            // A glide_list: comma-separated sys_ids of users (or e-mail addresses), ref §11.3.
            ColumnSpec("watch_list", "Watch list", "glide_list", 4000, reference: "sys_user"),
        ])

    static let incidentStates = [
        ChoiceSpec("1", "New"), ChoiceSpec("2", "In Progress"), ChoiceSpec("3", "On Hold"),
        ChoiceSpec("6", "Resolved"), ChoiceSpec("7", "Closed"), ChoiceSpec("8", "Canceled"),
    ]

    static let incidentCategories: [(value: String, label: String, subcategories: [(String, String)])] = [
        (
            "inquiry", "Inquiry / Help",
            [
                ("antivirus", "Antivirus"), ("email", "Email"), ("internal application", "Internal Application"),
            ]
        ),
        ("software", "Software", [("email", "Email"), ("os", "Operating System")]),
        (
            "hardware", "Hardware",
            [
                ("cpu", "CPU"), ("disk", "Disk"), ("keyboard", "Keyboard"), ("memory", "Memory"),
                ("monitor", "Monitor"),
                ("mouse", "Mouse"),
            ]
        ),
        (
            "network", "Network",
            [
                ("dhcp", "DHCP"), ("dns", "DNS"), ("ip address", "IP Address"), ("vpn", "VPN"),
                ("wireless", "Wireless"),
            ]
        ),
        ("database", "Database", [("db2", "DB2"), ("ms sql server", "MS SQL Server"), ("oracle", "Oracle")]),
    ]

    static let incidentCloseCodes = [
        "Solved (Work Around)", "Solved (Permanently)", "Solved Remotely (Work Around)",
        "Solved Remotely (Permanently)", "Not Solved (Not Reproducible)", "Not Solved (Too Costly)",
        "Closed/Resolved by Caller",
    ]

    static let incident = TableSpec(
        name: "incident", label: "Incident", superClass: "task", extendable: true,
        columns: [
            ColumnSpec.reference("caller_id", "Caller", "sys_user"),
            ColumnSpec.string("category", "Category", 40).withDefault("inquiry").withChoices(
                incidentCategories.map { ChoiceSpec($0.value, $0.label) }),
            ColumnSpec.string("subcategory", "Subcategory", 40).dependent(on: "category").withChoices(
                incidentCategories.flatMap { category in
                    category.subcategories.map { ChoiceSpec($0.0, $0.1, dependentValue: category.value) }
                }),
            ColumnSpec.integer("incident_state", "Incident state").withDefault("1").withChoices(
                incidentStates, mode: 3),
            ColumnSpec.integer("severity", "Severity").withDefault("3").withChoices(highMediumLow, mode: 3),
            ColumnSpec.string("close_code", "Resolution code", 40).withChoices(
                incidentCloseCodes.map { ChoiceSpec($0, $0) }),
            ColumnSpec.text("close_notes", "Resolution notes"),
            ColumnSpec.dateTime("resolved_at", "Resolved"),
            ColumnSpec.reference("resolved_by", "Resolved by", "sys_user"),
            ColumnSpec.integer("reopen_count", "Reopen count").withDefault("0"),
            ColumnSpec.duration("calendar_duration", "Duration"),
            ColumnSpec.integer("business_stc", "Business resolve time"),
            ColumnSpec.integer("calendar_stc", "Resolve time"),
            ColumnSpec.integer("hold_reason", "On hold reason").withChoices([
                ChoiceSpec("1", "Awaiting Caller"), ChoiceSpec("5", "Awaiting Change"),
                ChoiceSpec("3", "Awaiting Problem"), ChoiceSpec("4", "Awaiting Vendor"),
            ]),
            ColumnSpec.reference("problem_id", "Problem", "problem"),
            ColumnSpec.reference("rfc", "Change Request", "change_request"),
            ColumnSpec.reference("caused_by", "Caused by Change", "change_request"),
            ColumnSpec.integer("child_incidents", "Child Incidents").withDefault("0"),
        ],
        choiceOverrides: [ChoiceOverride(element: "state", choices: incidentStates)])

    static let problemStates = [
        ChoiceSpec("101", "New"), ChoiceSpec("102", "Assess"), ChoiceSpec("103", "Root Cause Analysis"),
        ChoiceSpec("104", "Fix in Progress"), ChoiceSpec("106", "Resolved"), ChoiceSpec("107", "Closed"),
    ]

    static let problem = TableSpec(
        name: "problem", label: "Problem", superClass: "task", extendable: false,
        columns: [
            ColumnSpec.integer("problem_state", "Problem state").withDefault("1").withChoices([
                ChoiceSpec("1", "Open"), ChoiceSpec("2", "Known Error"), ChoiceSpec("3", "Pending Change"),
                ChoiceSpec("4", "Closed/Resolved"),
            ]),
            ColumnSpec.boolean("known_error", "Known error", default: false),
            ColumnSpec.text("cause_notes", "Cause notes"),
            ColumnSpec.text("fix_notes", "Fix notes"),
            ColumnSpec.text("workaround", "Workaround"),
            ColumnSpec.string("resolution_code", "Resolution code", 40).withChoices([
                ChoiceSpec("fix_applied", "Fix Applied"), ChoiceSpec("risk_accepted", "Risk Accepted"),
                ChoiceSpec("canceled", "Canceled"), ChoiceSpec("duplicate", "Duplicate"),
            ]),
            ColumnSpec.dateTime("resolved_at", "Resolved"),
            ColumnSpec.reference("resolved_by", "Resolved by", "sys_user"),
            ColumnSpec.integer("related_incidents", "Related Incidents").withDefault("0"),
            ColumnSpec.reference("first_reported_by_task", "First reported by", "task"),
        ],
        choiceOverrides: [ChoiceOverride(element: "state", choices: problemStates)])

    static let changeStates = [
        ChoiceSpec("-5", "New"), ChoiceSpec("-4", "Assess"), ChoiceSpec("-3", "Authorize"),
        ChoiceSpec("-2", "Scheduled"), ChoiceSpec("-1", "Implement"), ChoiceSpec("0", "Review"),
        ChoiceSpec("3", "Closed"), ChoiceSpec("4", "Canceled"),
    ]

    static let changeRequest = TableSpec(
        name: "change_request", label: "Change Request", superClass: "task", extendable: true,
        columns: [
            ColumnSpec.string("type", "Type", 40).withDefault("normal").withChoices([
                ChoiceSpec("standard", "Standard"), ChoiceSpec("normal", "Normal"),
                ChoiceSpec("emergency", "Emergency"),
            ]),
            ColumnSpec.integer("risk", "Risk").withDefault("3").withChoices([
                ChoiceSpec("1", "Very High"), ChoiceSpec("2", "High"), ChoiceSpec("3", "Moderate"),
                ChoiceSpec("4", "Low"),
            ]),
            ColumnSpec.string("category", "Category", 40).withDefault("Other").withChoices(
                ChoiceSpec.same(
                    "Hardware", "Software", "Service", "System Software", "Applications Software", "Network",
                    "Telecom", "Documentation", "Other")),
            ColumnSpec.reference("requested_by", "Requested by", "sys_user"),
            ColumnSpec.dateTime("start_date", "Planned start date"),
            ColumnSpec.dateTime("end_date", "Planned end date"),
            ColumnSpec.text("justification", "Justification"),
            ColumnSpec.text("implementation_plan", "Implementation plan"),
            ColumnSpec.text("backout_plan", "Backout plan"),
            ColumnSpec.text("test_plan", "Test plan"),
            ColumnSpec.boolean("cab_required", "CAB required", default: false),
            ColumnSpec.boolean("on_hold", "On hold", default: false),
            ColumnSpec.string("close_code", "Close code", 40).withChoices([
                ChoiceSpec("successful", "Successful"), ChoiceSpec("successful_issues", "Successful with issues"),
                ChoiceSpec("unsuccessful", "Unsuccessful"),
            ]),
        ],
        choiceOverrides: [ChoiceOverride(element: "state", choices: changeStates)])

    // MARK: - Auditing

    /// Deleted records (`sys_audit_delete`): one row per deleted record, written by the Table API's
    /// DELETE in the delete's transaction (see `DeletionAudit`), readable by `admin` only unless a
    /// `--table-acl` rule names it (`AccessRules.adminOnlyTables`).
    ///
    /// `tablename` is the deleted record's own class (`incident`, also when it was deleted through
    /// `task`), `documentkey` its sys_id, `display_value` its display value (an incident's number),
    /// `payload` the record as XML; `sys_created_on`/`sys_created_by` are the deletion's time and user.
    static let sysAuditDelete = root(
        "sys_audit_delete", "Deleted Records",
        [
            ColumnSpec("tablename", "Table", "table_name", 80),
            ColumnSpec("documentkey", "Document key", "GUID", 32),
            ColumnSpec.string("display_value", "Display value", 255),
            ColumnSpec.text("payload", "Payload", 65_000),
        ])

    // MARK: - Approvals (ref §11.3)

    /// Approvals (`sysapproval_approver`): `document_id` is a `document_id` field, a sys_id whose table
    /// is the value of `source_table` (its dictionary `dependent_on_field`); `sysapproval` the same record as a
    /// task reference.
    static let sysapprovalApprover = root(
        "sysapproval_approver", "Approval",
        [
            ColumnSpec.reference("approver", "Approver", "sys_user"),
            ColumnSpec.reference("sysapproval", "Approval for", "task"),
            ColumnSpec("source_table", "Source table", "table_name", 80),
            ColumnSpec("document_id", "Approving", "document_id", 32).tableIn("source_table"),
            ColumnSpec.string("state", "State", 40).withDefault("requested").withChoices([
                ChoiceSpec("not requested", "Not Yet Requested"), ChoiceSpec("requested", "Requested"),
                ChoiceSpec("approved", "Approved"), ChoiceSpec("rejected", "Rejected"),
                ChoiceSpec("cancelled", "Cancelled"), ChoiceSpec("not_required", "No Longer Required"),
            ]),
            ColumnSpec.dateTime("due_date", "Due date"),
            ColumnSpec.journal("comments", "Comments"),
        ])

    // MARK: - Side effects of writes (ref §11.2)

    /// When a business rule runs.
    static let whenChoices = [
        ChoiceSpec("before", "before"), ChoiceSpec("after", "after"), ChoiceSpec("async", "async"),
        ChoiceSpec("display", "display"),
    ]

    /// Business rules (`sys_script`): `collection` is the table, `when` and the `action_*` flags say on
    /// which writes it runs.
    static let sysScript = root(
        "sys_script", "Business Rule",
        [
            ColumnSpec.string("name", "Name", 100).asDisplay(),
            ColumnSpec("collection", "Table", "table_name", 80),
            ColumnSpec.boolean("active", "Active", default: true),
            ColumnSpec.string("when", "When", 40).withDefault("before").withChoices(whenChoices),
            ColumnSpec.integer("order", "Order").withDefault("100"),
            ColumnSpec.boolean("action_insert", "Insert", default: false),
            ColumnSpec.boolean("action_update", "Update", default: false),
            ColumnSpec.boolean("action_delete", "Delete", default: false),
            ColumnSpec.boolean("action_query", "Query", default: false),
            ColumnSpec.boolean("advanced", "Advanced", default: false),
            ColumnSpec("filter_condition", "Filter Conditions", "conditions", 4000),
            ColumnSpec.string("condition", "Condition", 254),
            ColumnSpec("script", "Script", "script_plain", 8000),
            ColumnSpec.text("description", "Description"),
        ])

    /// Email notifications (`sysevent_email_action`): `collection` is the table; `action_insert` and
    /// `action_update` send on record inserts and updates when `generation_type` is `engine`, else on
    /// the event `event_name`.
    static let syseventEmailAction = root(
        "sysevent_email_action", "Notification",
        [
            ColumnSpec.string("name", "Name", 100).asDisplay(),
            ColumnSpec("collection", "Table", "table_name", 80),
            ColumnSpec.boolean("active", "Active", default: true),
            ColumnSpec.string("generation_type", "Send when", 40).withDefault("engine").withChoices([
                ChoiceSpec("engine", "Record inserted or updated"), ChoiceSpec("event", "Event is fired"),
                ChoiceSpec("triggered", "Triggered"),
            ]),
            ColumnSpec.boolean("action_insert", "Inserted", default: false),
            ColumnSpec.boolean("action_update", "Updated", default: false),
            ColumnSpec.string("event_name", "Event name", 40),
            ColumnSpec("condition", "Conditions", "conditions", 4000),
            ColumnSpec("recipient_users", "Users", "glide_list", 4000, reference: "sys_user"),
            ColumnSpec("recipient_groups", "Groups", "glide_list", 4000, reference: "sys_user_group"),
            ColumnSpec.string("recipient_fields", "Users/Groups in fields", 4000),
            ColumnSpec.string("subject", "Subject", 100),
            ColumnSpec("message_html", "Message HTML", "html", 65_000),
            ColumnSpec.integer("weight", "Weight").withDefault("0"),
        ])

    /// Email messages (`sys_email`): a notification that fires queues one with `type` `send-ready` in
    /// the outbox; `instance` (a `document_id` on `target_table`) is the record it is about.
    static let sysEmail = root(
        "sys_email", "Email",
        [
            ColumnSpec.string("subject", "Subject", 1000).asDisplay(),
            ColumnSpec.string("type", "Type", 40).withDefault("send-ready").withChoices([
                ChoiceSpec("send-ready", "send-ready"), ChoiceSpec("sent", "sent"),
                ChoiceSpec("send-ignored", "send-ignored"), ChoiceSpec("send-failed", "send-failed"),
                ChoiceSpec("received", "received"), ChoiceSpec("received-ignored", "received-ignored"),
            ]),
            ColumnSpec.string("mailbox", "Mailbox", 40).withChoices(ChoiceSpec.same("outbox", "inbox", "sent", "junk")),
            ColumnSpec("target_table", "Target table", "table_name", 80),
            ColumnSpec("instance", "Target", "document_id", 32).tableIn("target_table"),
            ColumnSpec.string("recipients", "Recipients", 4000),
            ColumnSpec("body", "Body", "html", 65_000),
            ColumnSpec.string("notification_type", "Notification type", 40).withDefault("SMTP"),
            ColumnSpec.string("content_type", "Content type", 100),
            ColumnSpec.reference("notification", "Notification", "sysevent_email_action"),
        ])

    /// Flow Designer flows (`sys_hub_flow`); `remote_trigger_id` is the flow's trigger, for a record
    /// trigger a `sys_flow_record_trigger` row.
    static let sysHubFlow = root(
        "sys_hub_flow", "Flow",
        [
            ColumnSpec.string("name", "Name", 100).asDisplay(),
            ColumnSpec.string("internal_name", "Internal name", 100),
            ColumnSpec.boolean("active", "Active", default: false),
            ColumnSpec.string("status", "Status", 40).withDefault("draft").withChoices([
                ChoiceSpec("draft", "Draft"), ChoiceSpec("published", "Published"),
            ]),
            ColumnSpec.string("type", "Type", 40).withDefault("flow").withChoices([
                ChoiceSpec("flow", "Flow"), ChoiceSpec("subflow", "Subflow"), ChoiceSpec("action", "Action"),
            ]),
            ColumnSpec.reference("remote_trigger_id", "Trigger", "sys_flow_trigger"),
            ColumnSpec.text("description", "Description"),
        ])

    /// Flow triggers (`sys_flow_trigger`), extended by the record trigger.
    static let sysFlowTrigger = root(
        "sys_flow_trigger", "Flow Trigger", extendable: true,
        [
            ColumnSpec.boolean("active", "Active", default: true)
        ])

    /// Record triggers of flows (`sys_flow_record_trigger`): `table`, `condition` and the `on_*` flags
    /// say which writes start the flow.
    static let sysFlowRecordTrigger = TableSpec(
        name: "sys_flow_record_trigger", label: "Flow Record Trigger", superClass: "sys_flow_trigger",
        extendable: false,
        columns: [
            ColumnSpec("table", "Table", "table_name", 80),
            ColumnSpec("condition", "Condition", "conditions", 4000),
            ColumnSpec.boolean("on_insert", "On insert", default: false),
            ColumnSpec.boolean("on_update", "On update", default: false),
            ColumnSpec.boolean("on_delete", "On delete", default: false),
            ColumnSpec.boolean("run_on_extended", "Run on extended tables", default: false),
            ColumnSpec.string("run_when_setting", "Run when", 40).withDefault("both"),
            ColumnSpec.string("run_when_user_setting", "Run for user", 40).withDefault("any"),
            ColumnSpec.string("run_flow_in", "Run flow in", 40).withDefault("background"),
        ])

    // MARK: - The whole record: attachments, journal entries, field history (docs/nowsim-records.md)

    /// Attachments (`sys_attachment`): the metadata of one file attached to the record `table_sys_id`
    /// of `table_name`; its bytes are in ``sysAttachmentDoc`` rows (ref §7.3; the columns as the
    /// Attachment API's metadata and the instance's XML export name them).
    ///
    /// `size_bytes` is the file's length, `size_compressed` the length of its gzip stream,
    /// `compressed` whether the chunks hold that stream (`true`) or the bytes themselves, `hash` the
    /// SHA-256 of the file as 64 lowercase hex digits, `chunk_size_bytes` the chunk length the
    /// writer used, `state` `available` once the bytes are stored.
    static let sysAttachment = root(
        "sys_attachment", "Attachment",
        [
            ColumnSpec.string("file_name", "File name", 100).asDisplay(),
            ColumnSpec.string("content_type", "Content type", 100),
            ColumnSpec("table_name", "Table name", "table_name", 80),
            ColumnSpec.string("table_sys_id", "Table sys ID", 32),
            ColumnSpec.integer("size_bytes", "Size bytes"),
            ColumnSpec.integer("size_compressed", "Size compressed"),
            ColumnSpec.boolean("compressed", "Compressed", default: true),
            ColumnSpec.string("hash", "Hash", 128),
            ColumnSpec.string("chunk_size_bytes", "Chunk size bytes", 40),
            ColumnSpec.integer("image_width", "Image width"),
            ColumnSpec.integer("image_height", "Image height"),
            ColumnSpec.string("average_image_color", "Average image color", 40),
            ColumnSpec.string("state", "State", 40).withDefault("available").withChoices([
                ChoiceSpec("pending", "Pending"), ChoiceSpec("available", "Available"),
                ChoiceSpec("not_available", "Not available"),
            ]),
            ColumnSpec.string("encryption_context", "Encryption context", 32),
        ])

    /// Attachment documents (`sys_attachment_doc`): one chunk of an attachment's stored bytes.
    /// `position` orders the chunks from 0, `data` is the chunk in base64, `length` the number of
    /// bytes the chunk decodes to.
    static let sysAttachmentDoc = root(
        "sys_attachment_doc", "Attachment Document",
        [
            ColumnSpec.reference("sys_attachment", "Attachment", "sys_attachment"),
            ColumnSpec.integer("position", "Position"),
            ColumnSpec.integer("length", "Length"),
            ColumnSpec.text("data", "Data", 1_000_000),
        ])

    /// Journal entries (`sys_journal_field`): one entry written to a journal field (`work_notes`,
    /// `comments`) of the record `element_id` of table `name` (ref §5, journal fields). The entry's
    /// author and time are its `sys_created_by` and `sys_created_on`.
    static let sysJournalField = root(
        "sys_journal_field", "Journal Entry",
        [
            ColumnSpec("name", "Name", "table_name", 80),
            ColumnSpec.string("element", "Element", 80),
            ColumnSpec("element_id", "Element ID", "GUID", 32),
            ColumnSpec.text("value", "Value", 4000),
        ])

    /// Field history (`sys_audit`): one row per changed field of an audited record (``RecordHistory``).
    static let sysAudit = root(
        "sys_audit", "Sys Audit",
        [
            ColumnSpec("tablename", "Table name", "table_name", 80),
            ColumnSpec("documentkey", "Document key", "GUID", 32),
            ColumnSpec.string("fieldname", "Field name", 80),
            ColumnSpec.text("oldvalue", "Old value", 8000),
            ColumnSpec.text("newvalue", "New value", 8000),
            ColumnSpec.string("reason", "Reason", 255),
            ColumnSpec.string("user", "User", 255),
            ColumnSpec.integer("record_checkpoint", "Record checkpoint"),
            ColumnSpec.string("internal_checkpoint", "Internal checkpoint", 40),
        ])
}

/// The words seeded rows are made of: names, places, companies, and the phrases of IT service work.
///
/// Plain data; `Seeder` combines it with its deterministic generator.
enum SeedVocabulary {
    /// A person's name part as shown and as used in a user name (ASCII).
    struct NamePart: Sendable {
        var display: String
        var ascii: String

        init(_ display: String, _ ascii: String? = nil) {
            self.display = display
            self.ascii = ascii ?? display
        }
    }

    static let firstNames: [NamePart] =
        [
            "Abel", "Beth", "Bud", "Carol", "Charlie", "David", "Don", "Fred", "George", "Howard", "Itil", "Jane",
            "Joe", "John", "Kim", "Linda", "Lucy", "Maria", "Mark", "Mary", "Michael", "Nancy", "Olivia", "Paul",
            "Rachel", "Rick", "Sam", "Sarah", "Tom", "Victor", "Wendy", "Aisha", "Carlos", "Chen", "Fatima", "Hiro",
            "Ingrid", "Jamal", "Kwame", "Lars", "Mei", "Nadia", "Omar", "Priya", "Raj", "Sofia", "Yusuf", "Zara",
        ].map { NamePart($0) } + [
            NamePart("Zoë", "zoe"), NamePart("José", "jose"), NamePart("Łukasz", "lukasz"),
            NamePart("Anne-Marie", "annemarie"),
            NamePart("Søren", "soren"), NamePart("Renée", "renee"), NamePart("Björn", "bjorn"),
            NamePart("Ünal", "unal"),
            NamePart("太郎", "taro"), NamePart("花子", "hanako"), NamePart("Олег", "oleg"), NamePart("Наталья", "natalya"),
            NamePart("محمد", "mohammed"), NamePart("अर्जुन", "arjun"), NamePart("伟", "wei"),
            NamePart("Γιώργος", "giorgos"),
        ]

    static let lastNames: [NamePart] =
        [
            "Tuter", "Anderson", "Brown", "Clark", "Davis", "Evans", "Garcia", "Harris", "Jackson", "Johnson", "King",
            "Lee", "Lewis", "Martin", "Miller", "Moore", "Nguyen", "Patel", "Robinson", "Rodriguez", "Smith", "Taylor",
            "Thomas", "Thompson", "Walker", "White", "Williams", "Wilson", "Wright", "Young", "Kowalski", "Rossi",
            "Schmidt", "Dubois", "Yamamoto", "Ivanova", "Okafor", "Haddad", "Singh", "Larsen", "Fernandes",
        ].map { NamePart($0) } + [
            NamePart("O'Brien", "obrien"), NamePart("D'Angelo", "dangelo"), NamePart("Müller", "mueller"),
            NamePart("Núñez", "nunez"), NamePart("van der Berg", "vanderberg"), NamePart("Smith-Jones", "smithjones"),
            NamePart("山田", "yamada"), NamePart("Иванов", "ivanov"), NamePart("الحسن", "alhassan"),
            NamePart("शर्मा", "sharma"), NamePart("王", "wang"), NamePart("Παπαδόπουλος", "papadopoulos"),
        ]

    static let titles = [
        "Service Desk Analyst", "Senior Systems Engineer", "Network Administrator", "Database Administrator",
        "IT Manager", "Change Manager", "Problem Manager", "Software Engineer", "Account Manager",
        "Sales Representative", "HR Generalist", "Chief Financial Officer", "Facilities Coordinator",
        "Security Analyst", "Cloud Architect", "Business Analyst", "Project Manager", "Accountant",
        "Marketing Specialist", "Field Technician",
    ]

    /// A city with region, country, coordinates, time zone and a street to build addresses from.
    struct City: Sendable {
        var city: String
        var state: String
        var country: String
        var latitude: Double
        var longitude: Double
        var timeZone: String
        var language: String
        var street: String
    }

    static let cities: [City] = [
        City(
            city: "San Diego", state: "CA", country: "USA", latitude: 32.7157, longitude: -117.1611,
            timeZone: "America/Los_Angeles", language: "en", street: "Harbor Drive"),
        City(
            city: "Chicago", state: "IL", country: "USA", latitude: 41.8781, longitude: -87.6298,
            timeZone: "America/Chicago", language: "en", street: "West Madison Street"),
        City(
            city: "New York", state: "NY", country: "USA", latitude: 40.7128, longitude: -74.006,
            timeZone: "America/New_York", language: "en", street: "Broadway"),
        City(
            city: "Baltimore", state: "MD", country: "USA", latitude: 39.2904, longitude: -76.6122,
            timeZone: "America/New_York", language: "en", street: "South Charles Street"),
        City(
            city: "Toronto", state: "ON", country: "Canada", latitude: 43.6532, longitude: -79.3832,
            timeZone: "America/Toronto", language: "en", street: "King Street West"),
        City(
            city: "São Paulo", state: "SP", country: "Brazil", latitude: -23.5505, longitude: -46.6333,
            timeZone: "America/Sao_Paulo", language: "pt", street: "Avenida Paulista"),
        City(
            city: "London", state: "England", country: "UK", latitude: 51.5074, longitude: -0.1278,
            timeZone: "Europe/London", language: "en", street: "Bishopsgate"),
        City(
            city: "München", state: "Bayern", country: "Germany", latitude: 48.1351, longitude: 11.582,
            timeZone: "Europe/Berlin", language: "de", street: "Leopoldstraße"),
        City(
            city: "Paris", state: "Île-de-France", country: "France", latitude: 48.8566, longitude: 2.3522,
            timeZone: "Europe/Paris", language: "fr", street: "Rue de Rivoli"),
        City(
            city: "Amsterdam", state: "Noord-Holland", country: "Netherlands", latitude: 52.3676,
            longitude: 4.9041, timeZone: "Europe/Amsterdam", language: "nl", street: "Keizersgracht"),
        City(
            city: "Kraków", state: "Małopolskie", country: "Poland", latitude: 50.0647, longitude: 19.945,
            timeZone: "Europe/Warsaw", language: "pl", street: "ulica Floriańska"),
        City(
            city: "Москва", state: "Москва", country: "Russia", latitude: 55.7558, longitude: 37.6173,
            timeZone: "Europe/Moscow", language: "ru", street: "Тверская улица"),
        City(
            city: "Dubai", state: "Dubai", country: "UAE", latitude: 25.2048, longitude: 55.2708,
            timeZone: "Asia/Dubai", language: "ar", street: "Sheikh Zayed Road"),
        City(
            city: "Bengaluru", state: "Karnataka", country: "India", latitude: 12.9716, longitude: 77.5946,
            timeZone: "Asia/Kolkata", language: "hi", street: "MG Road"),
        City(
            city: "Singapore", state: "Singapore", country: "Singapore", latitude: 1.3521, longitude: 103.8198,
            timeZone: "Asia/Singapore", language: "en", street: "Raffles Place"),
        City(
            city: "東京", state: "東京都", country: "Japan", latitude: 35.6762, longitude: 139.6503,
            timeZone: "Asia/Tokyo", language: "ja", street: "有楽町"),
        City(
            city: "Sydney", state: "NSW", country: "Australia", latitude: -33.8688, longitude: 151.2093,
            timeZone: "Australia/Sydney", language: "en", street: "George Street"),
        City(
            city: "Johannesburg", state: "Gauteng", country: "South Africa", latitude: -26.2041,
            longitude: 28.0473, timeZone: "Africa/Johannesburg", language: "en", street: "Rivonia Road"),
    ]

    /// A company: name, whether it makes hardware or software, and its stock symbol.
    struct Company: Sendable {
        var name: String
        var manufacturer: Bool
        var stockSymbol: String?
    }

    static let companies: [Company] = [
        Company(name: "ACME North America", manufacturer: false, stockSymbol: nil),
        Company(name: "ACME Japan", manufacturer: false, stockSymbol: nil),
        Company(name: "ACME Germany", manufacturer: false, stockSymbol: nil),
        Company(name: "Dell Inc.", manufacturer: true, stockSymbol: "DELL"),
        Company(name: "Hewlett-Packard", manufacturer: true, stockSymbol: "HPQ"),
        Company(name: "Cisco Systems", manufacturer: true, stockSymbol: "CSCO"),
        Company(name: "Apple", manufacturer: true, stockSymbol: "AAPL"),
        Company(name: "Lenovo", manufacturer: true, stockSymbol: "LNVGY"),
        Company(name: "IBM", manufacturer: true, stockSymbol: "IBM"),
        Company(name: "Microsoft", manufacturer: true, stockSymbol: "MSFT"),
        Company(name: "Oracle", manufacturer: true, stockSymbol: "ORCL"),
        Company(name: "VMware", manufacturer: true, stockSymbol: "VMW"),
        Company(name: "Juniper Networks", manufacturer: true, stockSymbol: "JNPR"),
        Company(name: "Samsung Electronics", manufacturer: true, stockSymbol: nil),
        Company(name: "Smith, Jones & Partners", manufacturer: false, stockSymbol: nil),
        Company(name: "Müller & Söhne GmbH", manufacturer: false, stockSymbol: nil),
        Company(name: "株式会社サンプル", manufacturer: false, stockSymbol: nil),
        Company(name: "ООО «Ромашка»", manufacturer: false, stockSymbol: nil),
        Company(name: "O'Reilly \"Quoted\" Holdings", manufacturer: false, stockSymbol: nil),
        Company(name: "Globex Corporation", manufacturer: false, stockSymbol: "GBX"),
        Company(name: "Initech", manufacturer: false, stockSymbol: nil),
        Company(name: "Umbrella Health", manufacturer: false, stockSymbol: nil),
        Company(name: "Stark Logistics", manufacturer: false, stockSymbol: nil),
        Company(name: "Wayne Financial", manufacturer: false, stockSymbol: nil),
        Company(name: "Tyrell Robotics", manufacturer: true, stockSymbol: nil),
    ]

    static let groupNames = [
        "Service Desk", "Network", "Database", "Hardware", "Software", "Linux Server Team", "Windows Server Team",
        "Application Development", "CAB Approval", "Help Desk", "IT Securities", "Problem Solving",
        "Incident Management", "Change Management", "Openspace", "Field Services", "Cloud Operations",
        "SAP Basis", "Service Desk – EMEA", "サービスデスク 東京", "Storage & Backup", "Identity \"IAM\" Team",
    ]

    /// An incident subject with the category and subcategory it belongs to.
    struct Subject: Sendable {
        var text: String
        var category: String
        var subcategory: String
    }

    /// Subject templates; `{system}`, `{app}`, `{device}`, `{n}`, `{host}` are filled in by the seeder.
    static let subjects: [Subject] = [
        Subject(text: "Unable to access {system}", category: "inquiry", subcategory: "internal application"),
        Subject(text: "{system} is very slow since this morning", category: "software", subcategory: "os"),
        Subject(text: "Cannot connect to VPN from home office", category: "network", subcategory: "vpn"),
        Subject(text: "{device} not working", category: "hardware", subcategory: "monitor"),
        Subject(text: "Error message when opening {app}", category: "software", subcategory: "os"),
        Subject(text: "Password reset request for {system}", category: "inquiry", subcategory: "internal application"),
        Subject(text: "Email not syncing on {device}", category: "software", subcategory: "email"),
        Subject(text: "Printer on floor {n} is jammed", category: "hardware", subcategory: "keyboard"),
        Subject(text: "VPN disconnects every {n} minutes", category: "network", subcategory: "vpn"),
        Subject(text: "Disk space low on {host}", category: "hardware", subcategory: "disk"),
        Subject(text: "Oracle backup job failed on {host}", category: "database", subcategory: "oracle"),
        Subject(text: "SQL Server deadlocks in {app}", category: "database", subcategory: "ms sql server"),
        Subject(text: "DB2 tablespace full on {host}", category: "database", subcategory: "db2"),
        Subject(text: "Blue screen after update on {device}", category: "hardware", subcategory: "memory"),
        Subject(text: "Cannot log in to {system}", category: "inquiry", subcategory: "internal application"),
        Subject(text: "{app} license expired", category: "software", subcategory: "os"),
        Subject(text: "Wireless drops in conference room {n}", category: "network", subcategory: "wireless"),
        Subject(text: "DNS does not resolve {host}", category: "network", subcategory: "dns"),
        Subject(text: "No IP address from DHCP on floor {n}", category: "network", subcategory: "dhcp"),
        Subject(text: "Antivirus flags {app} as malware", category: "inquiry", subcategory: "antivirus"),
        Subject(text: "Mouse and keyboard unresponsive on {device}", category: "hardware", subcategory: "mouse"),
        Subject(text: "High CPU on {host}", category: "hardware", subcategory: "cpu"),
        Subject(text: "Outlook calendar not updating", category: "software", subcategory: "email"),
        Subject(text: "Access request: {system} read-only", category: "inquiry", subcategory: "internal application"),
        Subject(text: "Shared drive mapping lost on {device}", category: "network", subcategory: "ip address"),
        Subject(text: "How do I export a report from {app}?", category: "inquiry", subcategory: "email"),
    ]

    static let systems = [
        "SAP ERP", "Salesforce", "Workday", "the intranet", "SharePoint", "Jira", "Confluence", "the HR portal",
        "the expense system", "Citrix", "the payroll system", "ServiceNow", "Active Directory", "the data warehouse",
    ]

    static let apps = [
        "Excel", "Outlook", "Teams", "Zoom", "Adobe Acrobat", "Chrome", "SAP GUI", "Visual Studio", "Tableau",
        "PowerPoint", "Slack", "AutoCAD",
    ]

    static let devices = [
        "laptop", "docking station", "monitor", "iPhone", "Android phone", "desk phone", "printer", "scanner",
        "headset", "webcam", "tablet",
    ]

    static let sentences = [
        "The issue started after the latest update was installed.",
        "User tried restarting the machine but the problem persists.",
        "Several colleagues in the same team report the same behaviour.",
        "The error appears intermittently, roughly every hour.",
        "No changes were made on the user's side according to the caller.",
        "A screenshot of the error was attached to the email.",
        "Caller needs this resolved before the quarterly close.",
        "The problem only occurs when connected through the VPN.",
        "Clearing the browser cache did not help.",
        "Event log shows repeated warnings from the disk controller.",
        "The application hangs for about 30 seconds and then recovers.",
        "Workaround: use the web client until the desktop client is fixed.",
        "User is travelling and can only be reached by mobile phone.",
        "This is blocking the month-end payroll run.",
        "Monitoring raised an alert at 03:12 UTC.",
        "The service account password may have expired.",
        "Last successful run was yesterday evening.",
        "Reinstalling the client software was attempted without success.",
        "Network trace shows packet loss above 5%.",
        "Please contact the caller before 17:00 local time.",
    ]

    static let closeNotes = [
        "Restarted the service and confirmed with the caller that it works.",
        "Replaced the faulty hardware component.",
        "Reset the password and unlocked the account.",
        "Applied the vendor patch; monitoring shows normal behaviour.",
        "Cleared the cache and reconfigured the profile.",
        "Could not reproduce; caller agreed to close.",
        "Increased the disk quota and cleaned up old log files.",
        "Known issue, workaround provided; linked to problem record.",
        "Reinstalled the application from the software center.",
        "Caller resolved the issue themselves.",
    ]

    static let problemSubjects = [
        "Recurring VPN disconnects for remote users", "Email delivery delays during peak hours",
        "Memory leak in the reporting service", "Intermittent database connection timeouts",
        "Printer driver crashes on the print server", "Single sign-on fails after certificate rollover",
        "Storage array latency spikes at night", "Nightly batch exceeds its window",
        "Wireless controller reboots unexpectedly", "Slow logins caused by roaming profiles",
    ]

    static let changeSubjects = [
        "Upgrade {host} to the latest OS patch level", "Replace core switch in data center {n}",
        "Rotate TLS certificates for {system}", "Increase memory on {host}", "Migrate {system} to new cluster",
        "Apply database security patch on {host}", "Decommission legacy file server {host}",
        "Firewall rule change for {system}", "Deploy release {n}.0 of {app}", "Extend storage for {system}",
    ]

    static let planSteps = [
        "Notify stakeholders and the service desk.", "Take a full backup and verify it.",
        "Stop the application services.", "Apply the change according to the vendor guide.",
        "Restart the services and check the logs.", "Run the smoke tests.", "Monitor for 30 minutes.",
        "Roll back from the backup if the smoke tests fail.", "Update the CMDB records.",
    ]

    static let osVersions: [(os: String, versions: [String])] = [
        ("Linux Red Hat", ["7.9", "8.6", "8.8", "9.2"]), ("Linux SuSE", ["12 SP5", "15 SP4"]),
        ("Linux Ubuntu", ["20.04", "22.04", "24.04"]), ("Windows 2016 Standard", ["10.0.14393"]),
        ("Windows 2019 Datacenter", ["10.0.17763"]), ("Windows 2022 Standard", ["10.0.20348"]),
        ("AIX", ["7.2", "7.3"]), ("Solaris", ["11.4"]), ("HP/UX", ["11i v3"]),
    ]

    static let ciNames = [
        "SAP ERP", "Email", "Intranet Portal", "Payroll", "Data Warehouse", "CRM", "Print Service", "VPN Gateway",
        "Core Switch", "Storage Array", "Load Balancer", "Firewall", "Badge System", "Video Conferencing",
        "Printer", "Router", "Wireless AP",
    ]

    static let ciCategories = ["Hardware", "Software", "Network", "Service", "Storage"]
}

/// Independent readers for the sink tests: small Python programs run with `python3 -c`.
///
/// They live in Swift strings rather than fixture files because the test target declares no
/// resources (and fixture files beside the sources would be "unhandled files" to SwiftPM).
enum SinkPythonReaders {
    /// CSV from stdin through Python's `csv` module, printed as JSON rows; argument: the delimiter.
    static let csv = """
        # Reads CSV from stdin with Python's csv module (an independent reader) and prints the rows as JSON.
        # Usage: read_csv.py DELIMITER   (the BOM, if any, is dropped by utf-8-sig)
        import csv, io, json, sys

        delimiter = sys.argv[1] if len(sys.argv) > 1 else ","
        text = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8-sig", newline="")
        rows = list(csv.reader(text, delimiter=delimiter, strict=True))
        sys.stdout.write(json.dumps(rows, ensure_ascii=True))
        """

    /// JSON Lines or a JSON array (argument `lines` / `array`) through Python's `json`, as typed cells;
    /// strictly: `NaN` and `Infinity`, which Python accepts by default, are not JSON and fail.
    static let json = """
        # Reads JSON Lines (mode "lines") or one JSON array (mode "array") from stdin with Python's json module
        # and prints every row as a list of [kind, text] pairs: kind is str/int/float/bool/null, text the value
        # (ints and floats via repr of the parsed value; floats would show lost precision).
        import json, sys

        def cell(value):
            if value is None:
                return ["null", ""]
            if isinstance(value, bool):
                return ["bool", "true" if value else "false"]
            if isinstance(value, int):
                return ["int", str(value)]
            if isinstance(value, float):
                return ["float", repr(value)]
            if isinstance(value, str):
                return ["str", value]
            raise SystemExit("unexpected value " + repr(value))

        def reject(constant):
            raise SystemExit("not JSON (RFC 8259): " + constant)

        mode = sys.argv[1]
        data = sys.stdin.buffer.read().decode("utf-8")
        if mode == "lines":
            assert data == "" or data.endswith("\\n"), "JSON Lines must end with a newline"
            objects = [json.loads(line, parse_constant=reject) for line in data.split("\\n")[:-1]]
        else:
            objects = json.loads(data, parse_constant=reject)
            assert isinstance(objects, list)
        rows = []
        for obj in objects:
            assert isinstance(obj, dict)
            rows.append([[key] + cell(value) for key, value in obj.items()])
        sys.stdout.write(json.dumps(rows, ensure_ascii=True))
        """

    /// An XML document from stdin (no arguments) or several files (paths as arguments, `.gz` read with
    /// Python's `gzip`) through Python's `xml.etree` (expat), printed as JSON (a list for files).
    static let xml = """
        import gzip, json, sys
        import xml.etree.ElementTree as ET

        def document(data):
            root = ET.fromstring(data)
            records = []
            for record in root:
                fields = [[f.tag, f.text or "", dict(f.attrib)] for f in record]
                records.append({"tag": record.tag, "attrib": dict(record.attrib), "fields": fields})
            return {"root": root.tag, "rootAttrib": dict(root.attrib), "records": records}

        def read(path):
            opener = gzip.open if path.endswith(".gz") else open
            with opener(path, "rb") as file:
                return file.read()

        if len(sys.argv) > 1:
            result = [document(read(path)) for path in sys.argv[1:]]
        else:
            result = document(sys.stdin.buffer.read())
        sys.stdout.write(json.dumps(result, ensure_ascii=True))
        """
}

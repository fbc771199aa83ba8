#!/usr/bin/env python3
"""The peer of make bench: PySNC exporting every incident to CSV, as its documentation shows.

  bench_pysnc.py INSTANCE_URL CA_PEM OUT.csv BATCH_SIZE [ENCODED_QUERY]

GlideRecord with batch_size BATCH_SIZE and its defaults otherwise (display_value 'all', rewindable);
every field's stored value, the header from the first record's fields. Prints the row count.
"""
import csv
import sys

import pysnc

instance, ca, path, batch = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
query = sys.argv[5] if len(sys.argv) > 5 else ""
client = pysnc.ServiceNowClient(instance, ("admin", "admin"), verify=ca)
gr = client.GlideRecord("incident", batch_size=batch)
if query:
    gr.add_encoded_query(query)
gr.order_by("sys_id")
gr.query()
rows = 0
with open(path, "w", newline="") as f:
    writer = None
    for record in gr:
        if writer is None:
            fields = sorted(record.fields)
            writer = csv.writer(f)
            writer.writerow(fields)
        writer.writerow([record.get_value(name) for name in fields])
        rows += 1
print(rows)

#!/usr/bin/env bash
# make bench: measured side by side in one run.
#   1. nowsim seeding rate (BENCH_ROWS incidents, default 1,000,000)
#   2. rows/s nowsim serves for 1000-row keyset pages of incidents, value mode and display_value=all,
#      fetched with plain curl (the wire limit any client can reach), 1 and 4 clients at once.
#   3. nowetl at concurrency 1 and 8 against 300 ms per page, beside curl fetching the same pages.
set -euo pipefail
bin="$1"
rows="${BENCH_ROWS:-1000000}"
pages="${BENCH_PAGES:-200}"
work="$(mktemp -d)"
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
pid=""
now() { date +%s.%N; }

echo "== seeding $rows incidents"
start=$(now)
"$bin/nowsim" seed --db "$work/bench.sqlite" --seed "incident=$rows" --seed-value 1
end=$(now)
python3 -c "import sys; r=$rows; s=$end-$start; print(f'seed: {r} incidents in {s:.1f} s = {r/s:,.0f} rows/s (db {__import__(\"os\").path.getsize(\"$work/bench.sqlite\")/1e6:,.0f} MB)')"

"$bin/nowsim" serve --port 0 --port-file "$work/port" --db "$work/bench.sqlite" --quiet &
pid=$!
for _ in $(seq 1 600); do [ -s "$work/port" ] && break; sleep 0.1; done
base="http://127.0.0.1:$(cat "$work/port")/api/now/table/incident"

# Keyset boundaries: every 1000th sys_id, so each client request is one real keyset page.
curl -sS -u admin:admin "$base?sysparm_fields=sys_id&sysparm_query=ORDERBYsys_id&sysparm_limit=$((pages * 1000))&sysparm_exclude_reference_link=true&sysparm_no_count=true&sysparm_suppress_pagination_header=true" \
  | python3 -c "import json,sys; ids=[r['sys_id'] for r in json.load(sys.stdin)['result']]; print('\n'.join(ids[i] for i in range(0,len(ids),1000)))" > "$work/keys"

run() { # mode clients
  local mode="$1" clients="$2" extra=""
  [ "$mode" = all ] && extra="&sysparm_display_value=all"
  : > "$work/urls"
  while read -r key; do
    echo "url = \"$base?sysparm_query=sys_id%3E%3D$key%5EORDERBYsys_id&sysparm_limit=1000&sysparm_no_count=true&sysparm_suppress_pagination_header=true$extra\"" >> "$work/urls"
    echo "output = /dev/null" >> "$work/urls"
  done < "$work/keys"
  local start end bytes
  start=$(now)
  bytes=$(curl -sS --no-progress-meter -u admin:admin --parallel --parallel-max "$clients" -K "$work/urls" -w '%{size_download}\n' | python3 -c "import sys; print(sum(int(x) for x in sys.stdin))")
  end=$(now)
  python3 -c "p=$pages; s=$end-$start; b=$bytes; print(f'serve {\"$mode\":>5} x{$clients}: {p*1000/s:>10,.0f} rows/s  {b/s/1e6:7.1f} MB/s  ({p} pages of 1000 in {s:.2f} s)')"
  python3 -c "print($pages*1000/($end-$start))" > "$work/rate-$mode-$clients"
}
echo "== serving 1000-row keyset pages with curl ($pages pages per run)"
for mode in value all; do for clients in 1 4; do run "$mode" "$clients"; done; done
ratio() { python3 -c "print(f'{float(open(\"$work/rate-$1\").read())/float(open(\"$work/rate-$2\").read()):.2f}')"; }
echo "== ratios (same run)"
echo "display_value=all vs values, 1 client: $(ratio all-1 value-1)x the rows/s"
echo "4 clients vs 1, values:               $(ratio value-4 value-1)x the rows/s"
echo "4 clients vs 1, display_value=all:    $(ratio all-4 all-1)x the rows/s"

# 3. nowetl's concurrency where it matters: every page answered after 300 ms (a real instance takes
#    0.5–3 s), BENCH_ETL_ROWS incidents in pages of 100, concurrency 1 against 8, beside a plain client
#    fetching the same pages 8 at a time (the best any client can do against that latency).
etl_rows="${BENCH_ETL_ROWS:-20000}"
etl_delay="${BENCH_ETL_DELAY_MS:-300}"
kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
echo "== nowetl concurrency: $etl_rows incidents, pages of 100, ${etl_delay} ms per page"
"$bin/nowsim" seed --db "$work/etl.sqlite" --seed "incident=$etl_rows" --seed-value 2 >/dev/null
rm -f "$work/port"
"$bin/nowsim" serve --port 0 --port-file "$work/port" --db "$work/etl.sqlite" --quiet --fault "delay:ms=$etl_delay" &
pid=$!
for _ in $(seq 1 600); do [ -s "$work/port" ] && break; sleep 0.1; done
instance="http://127.0.0.1:$(cat "$work/port")"
for c in 1 8; do
  cat > "$work/etl-$c.yaml" <<YAML
version: 1
source:
  instance: $instance
  auth: { basic: { user: admin, password: admin } }
  concurrency: $c
  page_size: 100
output_dir: $work/etl-out-$c
tables:
  - table: incident
    fields: [number, short_description, priority, state, sys_updated_on]
outputs:
  - json: { path: "{table}.jsonl.gz" }
YAML
  start=$(now)
  "$bin/nowetl" run "$work/etl-$c.yaml" --progress off --log-level warning >/dev/null
  end=$(now)
  python3 -c "print($end-$start)" > "$work/etl-seconds-$c"
  python3 -c "s=$end-$start; print(f'nowetl concurrency {$c}: {s:6.1f} s  {$etl_rows/s:8,.0f} rows/s')"
done
# The plain client: the same 100-row keyset pages, 8 requests in flight.
curl -sS -u admin:admin "$instance/api/now/table/incident?sysparm_fields=sys_id&sysparm_query=ORDERBYsys_id&sysparm_limit=$etl_rows&sysparm_no_count=true&sysparm_suppress_pagination_header=true" \
  | python3 -c "import json,sys; ids=[r['sys_id'] for r in json.load(sys.stdin)['result']]; print('\n'.join(ids[i] for i in range(0,len(ids),100)))" > "$work/etl-keys"
: > "$work/etl-urls"
while read -r key; do
  echo "url = \"$instance/api/now/table/incident?sysparm_query=sys_id%3E%3D$key%5EORDERBYsys_id&sysparm_limit=100&sysparm_fields=number,short_description,priority,state,sys_updated_on&sysparm_no_count=true&sysparm_suppress_pagination_header=true\"" >> "$work/etl-urls"
  echo "output = /dev/null" >> "$work/etl-urls"
done < "$work/etl-keys"
for c in 1 8; do
  start=$(now)
  curl -sS --no-progress-meter -u admin:admin --parallel --parallel-max "$c" -K "$work/etl-urls"
  end=$(now)
  python3 -c "print($end-$start)" > "$work/curl-seconds-$c"
  python3 -c "s=$end-$start; print(f'curl x{$c} (same pages): {s:6.1f} s')"
done
speedup() { python3 -c "print(f'{float(open(\"$work/$1-seconds-1\").read())/float(open(\"$work/$1-seconds-8\").read()):.2f}')"; }
echo "== concurrency ratios (same run; issue 8 asks nowetl >= 6.5x at these settings)"
echo "nowetl concurrency 8 vs 1: $(speedup etl)x faster"
echo "curl 8 in flight vs 1:     $(speedup curl)x faster"

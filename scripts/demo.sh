#!/usr/bin/env bash
# make demo: start nowsim with seeded data, show the Table API answering, stop it.
# (Until the nowetl pipeline lands, the demo is a short curl tour of nowsim.)
set -euo pipefail
bin="$1"
work="$(mktemp -d)"
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
"$bin/nowsim" serve --port 0 --port-file "$work/port" --db "$work/demo.sqlite" --quiet \
  --seed incident=2000,problem=200,change_request=200 --seed-value 1 &
pid=$!
for _ in $(seq 1 600); do [ -s "$work/port" ] && break; sleep 0.1; done
port="$(cat "$work/port")"
base="http://127.0.0.1:$port"
show() { echo; echo "\$ curl -u admin:admin '$1'"; curl -sS -u admin:admin "$1" | head -c 1200; echo; }
show "$base/api/now/table/incident?sysparm_limit=2&sysparm_fields=number,short_description,caller_id,priority"
show "$base/api/now/table/incident?sysparm_limit=1&sysparm_fields=number,caller_id,priority&sysparm_display_value=all"
show "$base/api/now/stats/incident?sysparm_count=true&sysparm_group_by=priority&sysparm_display_value=true"
show "$base/api/now/table/sys_dictionary?sysparm_query=name=incident&sysparm_fields=element,internal_type,reference&sysparm_limit=5"
echo
echo "nowsim served the demo at $base (now stopped). Run your own: $bin/nowsim serve --seed incident=10000"

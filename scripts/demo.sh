#!/usr/bin/env bash
# make demo: start nowsim with seeded data, run pipelines/demo.yaml into out/demo/ with nowetl,
# print the summary and the files, stop nowsim.
set -euo pipefail
bin="$1"
work="$(mktemp -d)"
pid=""
trap '[ -n "$pid" ] && { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }; rm -rf "$work"' EXIT
"$bin/nowsim" serve --port 0 --port-file "$work/port" --db "$work/demo.sqlite" --quiet \
  --seed incident=2000,problem=200,change_request=200 --seed-value 1 &
pid=$!
for _ in $(seq 1 600); do [ -s "$work/port" ] && break; sleep 0.1; done
[ -s "$work/port" ] || { echo "demo: nowsim did not start" >&2; exit 1; }
port="$(cat "$work/port")"
base="http://127.0.0.1:$port"

export SN_INSTANCE="$base" SN_USER=admin SN_PASSWORD=admin
echo
echo "\$ SN_INSTANCE=$base SN_USER=admin SN_PASSWORD=admin nowetl run pipelines/demo.yaml --summary-json out/demo/summary.json"
set +e
"$bin/nowetl" run pipelines/demo.yaml --summary-json out/demo/summary.json
status=$?
set -e
echo "(nowetl exited with $status)"


echo
echo "\$ ls -l out/demo"
ls -l out/demo
[ "$status" = 0 ] || exit "$status"
echo
echo "Exported from nowsim at $base (now stopped). Next: point SN_INSTANCE at your instance (docs/getting-started.md)."

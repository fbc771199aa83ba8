#!/usr/bin/env bash
# make bench: nowetl measured side by side, in one run, with curl fetching the same requests, gzip -6 over
# the same bytes, the page decoders against JSONSerialization and Python's json.loads, every sink, the
# scaling case (slow pages, concurrency 1 vs 8), peak RSS on a big table and a peer (PySNC).
#
#   bash scripts/bench.sh BIN_DIR        (BIN_DIR holds release nowsim and nowetl; make bench passes it)
#
# Sizes and the parts to skip come from the environment (BENCH_ROWS, BENCH_BIG_ROWS, BENCH_SKIP, …):
# see scripts/bench.py. The table goes to stdout, the raw figures to $BENCH_JSON (bench-results.json).
# nowetl-bench (the decoder timing) is taken from BIN_DIR, else from $BENCH_DECODER_BIN.
set -euo pipefail
bin="${1:?usage: bash scripts/bench.sh BIN_DIR (the folder of release nowsim and nowetl)}"
bin="$(cd "$bin" && pwd)"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
for tool in "$bin/nowsim" "$bin/nowetl"; do
  [ -x "$tool" ] || { echo "bench: $tool is missing (swift build -c release)" >&2; exit 1; }
done
for tool in curl gzip python3 openssl; do
  command -v "$tool" >/dev/null || { echo "bench: $tool is not installed (make deps)" >&2; exit 1; }
done
decoder="${BENCH_DECODER_BIN:-$bin/nowetl-bench}"

# Under /tmp, readable by others: as root the throwaway PostgreSQL runs as nobody and keeps its data here.
work="$(mktemp -d /tmp/nowetl-bench.XXXXXX)"
chmod 755 "$work"
cleanup() {
  # Every server bench.py started wrote its pid here; bench.py stops them itself, this is the backstop
  # for a crash or a signal.
  if [ -f "$work/pids" ]; then
    while read -r pid; do kill "$pid" 2>/dev/null || true; done < "$work/pids"
    for _ in $(seq 1 50); do
      alive=""
      while read -r pid; do kill -0 "$pid" 2>/dev/null && alive=1; done < "$work/pids"
      [ -z "$alive" ] && break
      sleep 0.1
    done
    while read -r pid; do kill -9 "$pid" 2>/dev/null || true; done < "$work/pids"
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

python3 "$here/bench.py" "$bin" "$work" "$decoder"

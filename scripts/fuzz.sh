#!/usr/bin/env bash
# make fuzz: every fuzz target (Tests/Fuzz; docs/internals.md, "Fuzzing") under libFuzzer with AddressSanitizer,
# FUZZ_SECONDS each (default 60), from a fresh copy of its seed and regression corpora in a temporary
# directory, so the repository is not filled with generated inputs.
#
#   FUZZ_SECONDS=60 bash scripts/fuzz.sh [TARGET…]     (no TARGET: all of them)
#
# A crash, a failed check, a timeout (-timeout=10 s for one input) or an input that takes more than
# -rss_limit_mb=2048 ends that target: its input is copied to Tests/Fuzz/Regressions/<target>/ (the path
# is printed; commit it with the fix, `make test` replays it from then on) and the script exits 1 after
# the other targets have run. The sanitizer build has its own scratch path (.build/fuzz), so it leaves the
# ordinary debug build alone.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
swift="${SWIFT:-swift}"
seconds="${FUZZ_SECONDS:-60}"
all=(page-decoder encoded-query pipeline-yaml dotenv unload-xml csv-writer json-writer xml-writer attachment-name multipart-form)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")
for target in "${targets[@]}"; do
  [[ " ${all[*]} " == *" $target "* ]] || { echo "fuzz: unknown target '$target' (${all[*]})" >&2; exit 64; }
done

flags=(--scratch-path .build/fuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -DNOWETL_FUZZING)
echo "$swift build --product nowetl-fuzz ${flags[*]}"
"$swift" build --product nowetl-fuzz "${flags[@]}" || exit 1
fuzzer="$("$swift" build "${flags[@]}" --show-bin-path)/nowetl-fuzz"

# Crash reports from libFuzzer and the sanitizer (symbolized when llvm-symbolizer is found), not from the
# Swift runtime's backtracer, which would race them for the signal.
export SWIFT_BACKTRACE=enable=no
symbolizer="$(command -v llvm-symbolizer || true)"
[ -n "$symbolizer" ] || symbolizer="$(dirname "$(readlink -f "$(command -v "$swift")")")/llvm-symbolizer"
[ -x "$symbolizer" ] && export ASAN_SYMBOLIZER_PATH="$symbolizer"

failed=()
summary=()
for target in "${targets[@]}"; do
  work="$(mktemp -d "${TMPDIR:-/tmp}/nowetl-fuzz-$target.XXXXXX")"
  mkdir "$work/corpus"
  cp -R "Tests/Fuzz/Corpus/$target/." "$work/corpus/"
  [ -d "Tests/Fuzz/Regressions/$target" ] && cp -R "Tests/Fuzz/Regressions/$target/." "$work/corpus/"
  options=()
  [ -f "Tests/Fuzz/Dictionaries/$target.dict" ] && options+=(-dict="$PWD/Tests/Fuzz/Dictionaries/$target.dict")
  echo "fuzz: $target for ${seconds}s (log: $work/log)"
  # Standard input from /dev/null: a check must never wait for a terminal. TMPDIR: what a check
  # creates (the writers' part files) stays in the work directory, removed with it.
  (cd "$work" && TMPDIR="$work" "$fuzzer" "$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$work/" "${options[@]}" corpus < /dev/null > "$work/log" 2>&1)
  status=$?
  runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log" | tail -1)"
  rss="$(sed -n 's/^stat::peak_rss_mb: *//p' "$work/log" | tail -1)"
  artifacts=("$work"/crash-* "$work"/timeout-* "$work"/oom-* "$work"/leak-*)
  found=0
  for artifact in "${artifacts[@]}"; do
    [ -f "$artifact" ] || continue
    found=$((found + 1))
    mkdir -p "Tests/Fuzz/Regressions/$target"
    kept="Tests/Fuzz/Regressions/$target/$(basename "$artifact")"
    cp "$artifact" "$kept"
    echo "fuzz: $target: input kept as $kept"
  done
  if [ "$status" -ne 0 ] || [ "$found" -gt 0 ]; then
    echo "fuzz: $target FAILED (exit $status); the report, from $work/log:"
    grep -E -A 24 '^==[0-9]+==ERROR|deadly signal|nowetl-fuzz [a-z-]+: |ALARM|out-of-memory' "$work/log" | head -60
    echo "fuzz: reproduce with: $fuzzer $target <input>  (or without sanitizers: .build/debug/nowetl-fuzz $target <input>)"
    failed+=("$target")
    summary+=("$(printf '%-14s %5ss %10s runs %6s MB peak  FAILED (%s)' "$target" "$seconds" "${runs:-?}" "${rss:-?}" "$work")")
  else
    summary+=("$(printf '%-14s %5ss %10s runs %6s MB peak  ok' "$target" "$seconds" "${runs:-?}" "${rss:-?}")")
    rm -rf "$work"
  fi
done
printf '%s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: failed: ${failed[*]}" >&2
  exit 1
fi

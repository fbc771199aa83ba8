#!/usr/bin/env bash
# make deb-check: unpack the .deb (dpkg-deb -x) into a temporary root and prove it stands on its own:
# nowetl and nowsim run from there with a bare environment (no LD_LIBRARY_PATH, PATH=/usr/bin:/bin),
# ldd finds every library and none from a Swift toolchain, the control file has Depends, and the package
# holds the man pages, completions (which parse) and examples; the scheduling files work: systemd-analyze
# verify accepts the units (instantiated, from the unpacked root), the cron wrapper retries exit 75 and
# reports other failures (against a fake nowetl), and the installed examples validate as installed.
#   bash scripts/deb-check.sh [DEB]      (default: dist/nowetl_<version>_<arch>.deb, what make deb builds)
set -euo pipefail
cd "$(dirname "$0")/.."
version="$(sed -n 's/^public let nowetlVersion = "\(.*\)"$/\1/p' Sources/NowETL/NowETL.swift)"
deb="${1:-dist/nowetl_${version}_$(dpkg --print-architecture).deb}"
failures=0
fail() { echo "deb-check: FAIL: $*" >&2; failures=$((failures + 1)); }
ok() { echo "deb-check: ok: $*"; }
[ -f "$deb" ] || { echo "deb-check: $deb is missing (make deb)" >&2; exit 1; }

root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
dpkg-deb -x "$deb" "$root"

# A library path that belongs to a Swift toolchain (/opt/swift, swiftly, a toolchain tarball, …).
toolchain='/opt/swift|swiftly|/swift-[0-9]|[Tt]oolchain|/usr/lib/swift/'
for p in nowetl nowsim; do
  exe="$root/usr/bin/$p"
  if reported="$(env -i PATH=/usr/bin:/bin "$exe" --version 2>&1)" && [ "$reported" = "$p $version" ]; then
    ok "$p --version from the unpacked root: $reported"
  else
    fail "$p --version from the unpacked root printed '$reported' (expected '$p $version')"
  fi
  libs="$(env -i PATH=/usr/bin:/bin ldd "$exe" 2>&1)" || fail "ldd $p failed: $libs"
  if grep -q 'not found' <<<"$libs"; then fail "ldd $p: $(grep 'not found' <<<"$libs" | tr -s ' \t\n' ' ')"; fi
  if grep -Eq "$toolchain" <<<"$libs"; then
    fail "ldd $p shows toolchain libraries: $(grep -E "$toolchain" <<<"$libs" | tr -s ' \t\n' ' ')"
  else
    ok "ldd $p: $(grep -c '=>' <<<"$libs") libraries, none from a Swift toolchain, none missing"
  fi
  if objdump -p "$exe" | grep -Eq '^ *(RPATH|RUNPATH)'; then
    fail "$p has a search path: $(objdump -p "$exe" | grep -E '^ *(RPATH|RUNPATH)' | tr -s ' ' ' ')"
  fi
done

# With the toolchain hidden for real (a private mount namespace with an empty /opt/swift), when this
# machine allows it (root with CAP_SYS_ADMIN); otherwise the ldd check above stands alone.
if [ -d /opt/swift ] && [ "$(id -u)" = 0 ] && unshare --mount true 2>/dev/null; then
  if hidden="$(unshare --mount env -i PATH=/usr/bin:/bin ROOT="$root" bash -c \
    'mount -t tmpfs none /opt/swift && "$ROOT/usr/bin/nowetl" --version && "$ROOT/usr/bin/nowsim" --version' 2>&1)"; then
    ok "with /opt/swift hidden: $(tr '\n' ' ' <<<"$hidden")"
  else
    fail "with /opt/swift hidden: $hidden"
  fi
fi

info="$(dpkg-deb --info "$deb")"
depends="$(sed -n 's/^ Depends: //p' <<<"$info")"
if [[ "$depends" == *libc6* ]]; then ok "Depends: $depends"; else fail "no Depends naming libc6 in dpkg-deb --info"; fi

contents="$(dpkg-deb --contents "$deb" | awk '{ print $NF }')"
before=$failures
for f in usr/bin/nowetl usr/bin/nowsim \
  usr/share/man/man1/nowetl.1.gz usr/share/man/man1/nowsim.1.gz \
  usr/share/bash-completion/completions/nowetl usr/share/bash-completion/completions/nowsim \
  usr/share/zsh/vendor-completions/_nowetl usr/share/zsh/vendor-completions/_nowsim \
  usr/share/fish/vendor_completions.d/nowetl.fish usr/share/fish/vendor_completions.d/nowsim.fish \
  usr/share/doc/nowetl/examples/demo.yaml usr/share/doc/nowetl/copyright \
  lib/systemd/system/nowetl@.service lib/systemd/system/nowetl@.timer \
  lib/systemd/system/nowetl-failure@.service usr/share/nowetl/nowetl-cron usr/share/nowetl/nowetl-on-failure; do
  grep -qxF "./$f" <<<"$contents" || fail "dpkg-deb --contents lacks /$f"
done
[ "$failures" -gt "$before" ] || ok "contents: binaries, man pages, completions, examples, copyright, units, cron wrapper"

# The shipped files work: man renders the pages, bash registers the completion, zsh and fish parse theirs.
share="$root/usr/share"
before=$failures
for p in nowetl nowsim; do
  if command -v man >/dev/null; then
    warnings="$(MANWIDTH=80 man -l "$share/man/man1/$p.1.gz" 2>&1 >/dev/null)"
    [ -z "$warnings" ] || fail "man -l $p.1.gz: $warnings"
  fi
  bash -c 'source "$1" && complete -p "$2"' _ "$share/bash-completion/completions/$p" "$p" >/dev/null ||
    fail "bash: sourcing the $p completion registers nothing"
  if command -v zsh >/dev/null; then zsh -n "$share/zsh/vendor-completions/_$p" || fail "zsh -n _$p"; fi
  if command -v fish >/dev/null; then fish -n "$share/fish/vendor_completions.d/$p.fish" || fail "fish -n $p.fish"; fi
done
[ "$failures" -gt "$before" ] || ok "man pages render; bash, zsh and fish completions load or parse"

# --- Scheduling --------------------------------------------------------------------------------------
# The units, instantiated as an operator would (pipeline /etc/nowetl/incident.yaml), verified against
# the unpacked root: systemd-analyze resolves the ExecStart= programs there. The targets and slices the
# units depend on by default (sysinit.target, timers.target, system.slice, …) come from this machine's
# systemd, copied beside them. Any message (an unknown key too, which verify only warns about) fails.
if command -v systemd-analyze >/dev/null; then
  for unit in /lib/systemd/system/*.target /lib/systemd/system/*.slice; do
    [ -e "$root/lib/systemd/system/${unit##*/}" ] || cp "$unit" "$root/lib/systemd/system/"
  done
  if verified="$(systemd-analyze verify --root="$root" --man=no \
    nowetl@incident.service nowetl@incident.timer nowetl-failure@nowetl@incident.service 2>&1)" &&
    [ -z "$verified" ]; then
    ok "systemd-analyze verify: nowetl@incident.service, nowetl@incident.timer, nowetl-failure@nowetl@incident.service"
  else
    fail "systemd-analyze verify: $verified"
  fi
else
  fail "systemd-analyze is missing (Debian: apt-get install systemd; make deps installs it)"
fi

maintainer="$(mktemp -d)"
dpkg-deb -e "$deb" "$maintainer/DEBIAN"
before=$failures
for script in "$root/usr/share/nowetl/nowetl-cron" "$root/usr/share/nowetl/nowetl-on-failure" \
  "$maintainer/DEBIAN/postinst" "$maintainer/DEBIAN/postrm"; do
  [ -x "$script" ] || fail "${script#"$root"} is not executable"
  dash -n "$script" || fail "dash -n ${script#"$root"}"
done
grep -q 'adduser --system' "$maintainer/DEBIAN/postinst" || fail "postinst does not create the nowetl user"
[[ "$depends" == *adduser* ]] || fail "Depends lacks adduser (the postinst uses it)"
rm -rf "$maintainer"
[ "$failures" -gt "$before" ] || ok "cron wrapper, failure hook, postinst and postrm parse (dash -n); Depends: adduser"

# The cron wrapper against a fake nowetl that exits with the codes listed in $fake/codes, one per run,
# and writes a summary and a line on stderr each time. Prints the wrapper's output, then "exit N runs M".
fake="$(mktemp -d)"
cat >"$fake/nowetl" <<'FAKE'
#!/bin/sh
dir="$(dirname "$0")"
n=$(($(cat "$dir/runs" 2>/dev/null || echo 0) + 1))
echo "$n" >"$dir/runs"
code="$(sed -n "${n}p" "$dir/codes")"
[ "$1 $2 $3" = "run /etc/nowetl/x.yaml --summary-json" ] || { echo "fake nowetl: unexpected arguments: $*" >&2; exit 99; }
echo "{\"status\": \"fake-$code\"}" >"$4"
echo "fake nowetl: run $n exits $code" >&2
exit "$code"
FAKE
chmod 755 "$fake/nowetl"
cron_run() {
  rm -f "$fake/runs"
  printf '%s\n' "$@" >"$fake/codes"
  local output status=0
  output="$(env -i PATH="$fake:/usr/bin:/bin" NOWETL_CRON_BACKOFF=0 NOWETL_CRON_RETRIES=2 \
    "$root/usr/share/nowetl/nowetl-cron" /etc/nowetl/x.yaml --log-format json 2>&1)" || status=$?
  printf '%s\nexit %s runs %s' "$output" "$status" "$(cat "$fake/runs")"
}
before=$failures
got="$(cron_run 75 0)"
[ "$got" = "$(printf '\nexit 0 runs 2')" ] || fail "nowetl-cron, 75 then 0: expected no output, exit 0, 2 runs; got: $got"
got="$(cron_run 78)"
if [[ "$got" != *"exited 78 (configuration error), attempt 1 of 3"* || "$got" != *'"status": "fake-78"'* ||
  "$got" != *"fake nowetl: run 1 exits 78"* || "$got" != *"exit 78 runs 1" ]]; then
  fail "nowetl-cron, 78: expected the exit, summary and output, exit 78 after 1 run; got: $got"
fi
got="$(cron_run 75 75 75 0)"
[[ "$got" == *"exited 75 (temporary failure, still after 3 attempts)"*"exit 75 runs 3" ]] ||
  fail "nowetl-cron, 75 every time: expected exit 75 after 3 runs (NOWETL_CRON_RETRIES=2); got: $got"
rm -rf "$fake"
[ "$failures" -gt "$before" ] || ok "nowetl-cron: silent after 75 then 0; 78 reported at once; 75 retried twice, then reported"

# The examples as installed: an absolute output_dir under /var/lib/nowetl, and nowetl validate (offline)
# accepts them where they lie, with only the variables an operator sets (NOWETL_SECRETS: where the
# nightly example's password_file is, /etc/nowetl by default).
before=$failures
secrets="$(mktemp -d)"
install -m 600 /dev/null "$secrets/sn_password"
echo p >"$secrets/sn_password"
for example in demo incident-nightly; do
  file="$root/usr/share/doc/nowetl/examples/$example.yaml"
  grep -qx "output_dir: /var/lib/nowetl/$example" "$file" || fail "/usr/share/doc/nowetl/examples/$example.yaml: output_dir is not /var/lib/nowetl/$example"
  if ! checked="$(env -i PATH=/usr/bin:/bin SN_INSTANCE=https://acme.service-now.com SN_USER=u SN_PASSWORD=p \
    NOWETL_SECRETS="$secrets" "$root/usr/bin/nowetl" validate "$file" 2>&1)"; then
    fail "nowetl validate of the installed $example.yaml: $checked"
  fi
done
rm -rf "$secrets"
[ "$failures" -gt "$before" ] || ok "installed examples: output_dir /var/lib/nowetl/<name>; nowetl validate accepts them"

if [ "$failures" -gt 0 ]; then
  echo "deb-check: $failures failure(s) in $deb" >&2
  exit 1
fi
echo "deb-check: $deb passes"

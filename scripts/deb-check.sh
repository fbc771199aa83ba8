#!/usr/bin/env bash
# make deb-check: unpack the .deb (dpkg-deb -x) into a temporary root and prove it stands on its own:
# nowetl and nowsim run from there with a bare environment (no LD_LIBRARY_PATH, PATH=/usr/bin:/bin),
# ldd finds every library and none from a Swift toolchain, the control file has Depends, and the package
# holds the man pages, completions (which parse) and examples.
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
  usr/share/doc/nowetl/examples/demo.yaml usr/share/doc/nowetl/copyright; do
  grep -qxF "./$f" <<<"$contents" || fail "dpkg-deb --contents lacks /$f"
done
[ "$failures" -gt "$before" ] || ok "contents: binaries, man pages, completions, examples, copyright"

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

if [ "$failures" -gt 0 ]; then
  echo "deb-check: $failures failure(s) in $deb" >&2
  exit 1
fi
echo "deb-check: $deb passes"

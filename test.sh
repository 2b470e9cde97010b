#!/usr/bin/env bash
# Runs every test of cellshare: the Rust workspace's unit and scenario tests, then the
# Python tests (CLI, outputs, validation, reproductions, and — as root — the real-time
# emulator and the eBPF congestion controls). Installs what it needs first.
set -euo pipefail
cd "$(dirname "$0")"

# System packages of the real-time side (eBPF toolchain, iperf3, iproute2), installed when
# missing on a Debian machine where we are root. Without them the emulator and eBPF tests
# skip, printing what is missing.
need=()
command -v clang >/dev/null || need+=(clang llvm)
command -v bpftool >/dev/null || need+=(bpftool)
[ -e /usr/include/bpf/bpf_helpers.h ] || need+=(libbpf-dev)
command -v iperf3 >/dev/null || need+=(iperf3)
command -v ip >/dev/null || need+=(iproute2)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "test.sh: installing ${need[*]}" >&2
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"; } >/dev/null \
      || echo "test.sh: could not install ${need[*]}; the tests that need them will skip" >&2
  else
    echo "test.sh: missing ${need[*]} (needs root and apt-get to install); the tests that need them will skip" >&2
  fi
fi

python3 -m pip install --quiet --disable-pip-version-check -e '.[test]'
cargo test --workspace --quiet
cargo build --release --quiet -p cellshare-emu
# The Python tests: most on one worker per core (at most 4; pytest-xdist, one file per worker
# at a time), then, alone, the ones marked `serial` in tests/conftest.py (real-time runs and
# wall-clock limits that a busy core would distort). Both parts always run; the exit status
# is the first failure's.
workers=$(nproc 2>/dev/null || echo 2)
[ "$workers" -gt 4 ] && workers=4
rc=0
python3 -m pytest -q -n "$workers" --dist loadfile -m "not serial" || rc=$?
python3 -m pytest -q -m serial || { r=$?; [ "$rc" -ne 0 ] || rc=$r; }
exit "$rc"

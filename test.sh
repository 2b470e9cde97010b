#!/usr/bin/env bash
# Runs every test of cellshare: the Rust workspace's unit and scenario tests, then the
# Python tests (CLI, outputs, validation, reproductions). Installs what it needs first.
set -euo pipefail
cd "$(dirname "$0")"
python3 -m pip install --quiet --disable-pip-version-check -e '.[test]'
cargo test --workspace --quiet
python3 -m pytest -q
